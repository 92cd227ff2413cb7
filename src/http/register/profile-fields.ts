// The `custom_profile_fields` members of POST /register.
import { FIELD_TYPES, formatField } from '../../domain/profile-fields.js';
import { listFields } from '../../store/profile-fields.js';
import type { StateProvider } from './state.js';

export const profileFieldState: StateProvider = {
  types: ['custom_profile_fields'],
  spectators: true,
  async fetch(ctx) {
    const fields = await listFields(ctx.app.db, ctx.realm.id);
    return { custom_profile_fields: fields.map(formatField), custom_profile_field_types: FIELD_TYPES };
  },
};
