// Reducers for the bots a user administers (realm_bots) and custom profile fields.
import type { Reducer } from './types.js';

const realmBot: Reducer = (state, e) => {
  const bots: Record<string, unknown>[] | undefined = state.realm_bots;
  if (!bots) return;
  const i = bots.findIndex((b) => b.user_id === e.bot.user_id);
  switch (e.op) {
    case 'add':
      if (i >= 0) bots.splice(i, 1);
      bots.push(e.bot);
      return;
    case 'update':
      if (i >= 0) bots[i] = { ...bots[i], ...e.bot };
      return;
    case 'delete':
    case 'remove':
      if (i >= 0) bots.splice(i, 1);
      return;
  }
};

const customProfileFields: Reducer = (state, e) => {
  if (state.custom_profile_fields) state.custom_profile_fields = e.fields;
  // Values of deleted fields are gone with them.
  const ids = new Set((e.fields as Array<{ id: number }>).map((f) => String(f.id)));
  for (const list of [state.realm_users, state.realm_non_active_users]) {
    for (const u of (list ?? []) as Array<{ profile_data?: Record<string, unknown> }>) {
      if (!u.profile_data) continue;
      for (const k of Object.keys(u.profile_data)) if (!ids.has(k)) delete u.profile_data[k];
    }
  }
};

const hasVideocallToken: Reducer = (state, e) => {
  state.has_videocall_token = e.value;
};

export const userReducers: Record<string, Reducer> = {
  realm_bot: realmBot,
  custom_profile_fields: customProfileFields,
  has_videocall_token: hasVideocallToken,
};
