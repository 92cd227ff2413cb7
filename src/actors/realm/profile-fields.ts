// Realm commands for custom profile fields (administrators define them) and users' values for
// them. Run inside the realm actor; fields are read from the store inside the command, so the
// checks and the write see the same fields.
import type { CommonQueryMethods } from 'slonik';
import type { EventSpec } from '../event-sequencer.js';
import { errors } from '../../domain/errors.js';
import { customProfileFieldsEvent } from '../../domain/events/profile-fields.js';
import { realmUserEvent } from '../../domain/events/users.js';
import { emptyMarkdownContext, renderMarkdown } from '../../domain/markdown/index.js';
import {
  canShowInSummary,
  canUseForMatching,
  checkFieldData,
  checkFieldValue,
  DEFAULT_EXTERNAL_ACCOUNTS,
  FieldType,
  formatField,
  isFieldType,
  isRenderedType,
  MAX_SUMMARY_FIELDS,
  selectChoices,
} from '../../domain/profile-fields.js';
import { isAdmin } from '../../domain/roles.js';
import * as store from '../../store/profile-fields.js';
import type { RealmContext } from './actor.js';

export interface FieldInput {
  readonly name?: string | undefined;
  readonly hint?: string | undefined;
  readonly fieldData?: unknown;
  readonly displayInProfileSummary?: boolean | undefined;
  readonly required?: boolean | undefined;
  readonly editableByUser?: boolean | undefined;
  readonly useForUserMatching?: boolean | undefined;
}

const fieldNotFound = (id: number) => errors.badRequest(`Field id ${id} not found.`);

/** The whole list, as every client receives it after a change. */
async function fieldsEvent(tx: CommonQueryMethods, realmId: number): Promise<EventSpec> {
  const fields = await store.listFields(tx, realmId);
  return customProfileFieldsEvent.build({ fields: fields.map((f) => formatField(f) as { id: number }) }, { userIds: null });
}

/** Check a field's settings against the others of the organization. */
function checkField(others: readonly store.FieldRow[], f: store.FieldSettings): void {
  if (f.name.trim() === '') throw errors.badRequest('Label cannot be blank.');
  if (others.some((o) => o.name.toLowerCase() === f.name.toLowerCase())) throw errors.badRequest('A field with that label already exists.');
  if (f.display_in_profile_summary) {
    if (!canShowInSummary(f.field_type)) throw errors.badRequest('Field type not supported for display in profile summary.');
    if (others.filter((o) => o.display_in_profile_summary).length >= MAX_SUMMARY_FIELDS) {
      throw errors.badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
    }
  }
  if (f.use_for_user_matching && !canUseForMatching(f.field_type)) {
    throw errors.badRequest('Only short text and external account fields can be used for user matching.');
  }
}

/** External accounts of a known kind take that kind's name and hint. */
function withDefaults(type: number, fieldData: string, name: string, hint: string): { name: string; hint: string } {
  if (type !== FieldType.externalAccount) return { name, hint };
  const known = DEFAULT_EXTERNAL_ACCOUNTS[(JSON.parse(fieldData) as { subtype: string }).subtype];
  return known ? { name: known.name, hint: known.hint } : { name, hint };
}

async function createField(ctx: RealmContext, input: FieldInput & { readonly fieldType: number }): Promise<number> {
  if (!isFieldType(input.fieldType)) throw errors.badRequest('Invalid field type.');
  const fieldData = checkFieldData(input.fieldType, input.fieldData);
  const { name, hint } = withDefaults(input.fieldType, fieldData, (input.name ?? '').trim(), input.hint ?? '');
  const settings: store.FieldSettings = {
    name,
    hint,
    field_type: input.fieldType,
    field_data: fieldData,
    display_in_profile_summary: input.displayInProfileSummary ?? false,
    required: input.required ?? false,
    editable_by_user: input.editableByUser ?? true,
    use_for_user_matching: input.useForUserMatching ?? false,
  };
  return ctx.write(async (tx, emit) => {
    checkField(await store.listFields(tx, ctx.state.id), settings);
    const row = await store.insertField(tx, ctx.state.id, settings);
    emit(await fieldsEvent(tx, ctx.state.id));
    return row.id;
  });
}

async function updateField(ctx: RealmContext, input: FieldInput & { readonly fieldId: number }): Promise<void> {
  const realmId = ctx.state.id;
  await ctx.write(async (tx, emit) => {
    const fields = await store.listFields(tx, realmId);
    const field = fields.find((f) => f.id === input.fieldId);
    if (!field) throw fieldNotFound(input.fieldId);
    const fieldData = input.fieldData === undefined ? field.field_data : checkFieldData(field.field_type, input.fieldData);
    const named = withDefaults(field.field_type, fieldData, (input.name ?? field.name).trim(), input.hint ?? field.hint);
    const settings: store.FieldSettings = {
      ...named,
      field_type: field.field_type,
      field_data: fieldData,
      display_in_profile_summary: input.displayInProfileSummary ?? field.display_in_profile_summary,
      required: input.required ?? field.required,
      editable_by_user: input.editableByUser ?? field.editable_by_user,
      use_for_user_matching: input.useForUserMatching ?? field.use_for_user_matching,
    };
    checkField(fields.filter((f) => f.id !== field.id), settings);
    await store.updateField(tx, field.id, settings);
    // Values naming a removed option are removed with it.
    if (field.field_type === FieldType.select) {
      const choices = selectChoices(fieldData);
      for (const [userId, v] of await store.fieldValues(tx, field.id)) {
        if (v.value in choices) continue;
        await store.removeValue(tx, userId, field.id);
        emit(valueEvent(userId, field.id, null, null));
      }
    }
    emit(await fieldsEvent(tx, realmId));
  });
}

async function deleteField(ctx: RealmContext, input: { readonly fieldId: number }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    const fields = await store.listFields(tx, ctx.state.id);
    if (!fields.some((f) => f.id === input.fieldId)) throw fieldNotFound(input.fieldId);
    await store.deleteField(tx, input.fieldId);
    emit(await fieldsEvent(tx, ctx.state.id));
  });
}

async function reorderFields(ctx: RealmContext, input: { readonly order: readonly number[] }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    const ids = (await store.listFields(tx, ctx.state.id)).map((f) => f.id).sort((a, b) => a - b);
    const given = [...new Set(input.order)].sort((a, b) => a - b);
    if (given.length !== input.order.length || given.join() !== ids.join()) throw errors.badRequest('Invalid order mapping.');
    await store.reorderFields(tx, input.order);
    emit(await fieldsEvent(tx, ctx.state.id));
  });
}

function valueEvent(userId: number, fieldId: number, value: string | null, rendered: string | null): EventSpec {
  const custom_profile_field = rendered === null ? { id: fieldId, value } : { id: fieldId, value, rendered_value: rendered };
  return realmUserEvent.build({ op: 'update', person: { user_id: userId, custom_profile_field } }, { userIds: null });
}

export interface SetProfileDataInput {
  readonly actorId: number;
  readonly userId: number;
  /** null (or an empty value) removes the user's value. */
  readonly data: ReadonlyArray<{ readonly id: number; readonly value?: unknown }>;
}

/**
 * Set a user's values. The user may change fields that are editable_by_user; administrators
 * may change any field of anyone. Unchanged values emit nothing.
 */
async function setProfileData(ctx: RealmContext, input: SetProfileDataInput): Promise<void> {
  const { state } = ctx;
  const actor = state.user(input.actorId);
  const target = state.user(input.userId);
  if (!actor || !target) throw errors.noSuchUser();
  const privileged = isAdmin(actor.role);
  await ctx.write(async (tx, emit) => {
    const fields = new Map((await store.listFields(tx, state.id)).map((f) => [f.id, f]));
    const current = await store.userValues(tx, target.id);
    for (const item of input.data) {
      const field = fields.get(item.id);
      if (!field) throw fieldNotFound(item.id);
      if (!privileged && !field.editable_by_user) {
        throw errors.badRequest('You are not allowed to change this field. Contact an administrator to update it.');
      }
      const empty = item.value === null || item.value === '' || (Array.isArray(item.value) && item.value.length === 0);
      if (empty) {
        if (!current.has(field.id)) continue;
        await store.removeValue(tx, target.id, field.id);
        current.delete(field.id);
        emit(valueEvent(target.id, field.id, null, null));
        continue;
      }
      const value = checkFieldValue(field, item.value, (id) => state.user(id)?.is_active === true);
      if (current.get(field.id) === value) continue;
      const rendered = isRenderedType(field.field_type) ? renderMarkdown(value, emptyMarkdownContext).html : null;
      await store.setValue(tx, target.id, field.id, value, rendered);
      current.set(field.id, value);
      emit(valueEvent(target.id, field.id, value, rendered));
    }
  });
}

export const profileFieldCommands = {
  'profileField.create': createField,
  'profileField.update': updateField,
  'profileField.delete': deleteField,
  'profileField.reorder': reorderFields,
  'profileData.set': setProfileData,
};
