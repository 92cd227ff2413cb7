// Custom profile fields: the organization's fields (administrators define them) and users'
// values for them (PATCH/DELETE /users/me/profile_data; administrators use PATCH /users/{id}).
import { z } from 'zod';
import { formatField, MAX_FIELD_HINT_LENGTH, MAX_FIELD_NAME_LENGTH } from '../../domain/profile-fields.js';
import { listFields } from '../../store/profile-fields.js';
import { userEndpoint } from '../endpoint.js';
import { requireAdmin } from '../guards.js';
import { j, p } from '../params.js';

/**
 * profile_data as clients send it: [{id, value}], the value a string, a list of user ids or null;
 * which of them depends on the field, so the value is checked with the field (naming it).
 */
export const profileDataParam = () =>
  p.json(
    z.array(
      z.object({ id: j.int(), value: z.custom<unknown>((v) => v !== undefined, { message: '{at} key is missing' }) }).strict(),
    ),
  );

const fieldFlags = {
  hint: p.string({ max: MAX_FIELD_HINT_LENGTH }).optional(),
  field_data: p.json(z.unknown()).optional(),
  display_in_profile_summary: p.bool().optional(),
  required: p.bool().optional(),
  editable_by_user: p.bool().optional(),
  use_for_user_matching: p.bool().optional(),
};

const flagsInput = (params: {
  hint?: string | undefined;
  field_data?: unknown;
  display_in_profile_summary?: boolean | undefined;
  required?: boolean | undefined;
  editable_by_user?: boolean | undefined;
  use_for_user_matching?: boolean | undefined;
}) => ({
  hint: params.hint,
  fieldData: params.field_data,
  displayInProfileSummary: params.display_in_profile_summary,
  required: params.required,
  editableByUser: params.editable_by_user,
  useForUserMatching: params.use_for_user_matching,
});

export const getProfileFields = userEndpoint(z.object({}), async (ctx) => {
  const fields = await listFields(ctx.app.db, ctx.realm.id);
  return { custom_fields: fields.map(formatField) };
});

export const createProfileField = userEndpoint(
  z.object({ name: p.string({ max: MAX_FIELD_NAME_LENGTH }).optional(), field_type: p.int(), ...fieldFlags }),
  async (ctx, params) => {
    requireAdmin(ctx.user);
    const id = await ctx.realm.ask('profileField.create', { name: params.name, fieldType: params.field_type, ...flagsInput(params) });
    return { id };
  },
);

export const updateProfileField = userEndpoint(
  z.object({ field_id: p.int(), name: p.string({ max: MAX_FIELD_NAME_LENGTH }).optional(), ...fieldFlags }),
  async (ctx, params) => {
    requireAdmin(ctx.user);
    await ctx.realm.ask('profileField.update', { fieldId: params.field_id, name: params.name, ...flagsInput(params) });
    return {};
  },
);

export const deleteProfileField = userEndpoint(z.object({ field_id: p.int() }), async (ctx, params) => {
  requireAdmin(ctx.user);
  await ctx.realm.ask('profileField.delete', { fieldId: params.field_id });
  return {};
});

export const reorderProfileFields = userEndpoint(z.object({ order: p.intList() }), async (ctx, params) => {
  requireAdmin(ctx.user);
  await ctx.realm.ask('profileField.reorder', { order: params.order });
  return {};
});

export const updateOwnProfileData = userEndpoint(z.object({ data: profileDataParam() }), async (ctx, params) => {
  await ctx.realm.ask('profileData.set', { actorId: ctx.user.id, userId: ctx.user.id, data: params.data });
  return {};
});

export const removeOwnProfileData = userEndpoint(z.object({ data: p.intList() }), async (ctx, params) => {
  await ctx.realm.ask('profileData.set', { actorId: ctx.user.id, userId: ctx.user.id, data: params.data.map((id) => ({ id, value: null })) });
  return {};
});
