// Reducers for the event types of the foundation and event system: realm_user, user_settings,
// realm, heartbeat.
import type { Reducer } from './types.js';

const realmUser: Reducer = (state, e) => {
  const active: Record<string, unknown>[] | undefined = state.realm_users;
  const inactive: Record<string, unknown>[] | undefined = state.realm_non_active_users;
  if (!active) return;
  const person = e.person as Record<string, unknown>;
  const find = () => {
    const i = active.findIndex((u) => u.user_id === person.user_id);
    if (i >= 0) return { list: active, i };
    const j = inactive?.findIndex((u) => u.user_id === person.user_id) ?? -1;
    return j >= 0 ? { list: inactive!, i: j } : null;
  };
  switch (e.op) {
    case 'add':
      active.push(person);
      return;
    case 'remove': {
      const at = find();
      if (at) at.list.splice(at.i, 1);
      return;
    }
    case 'update': {
      const at = find();
      if (!at) return;
      const merged: Record<string, unknown> = { ...at.list[at.i] };
      for (const [k, v] of Object.entries(person)) {
        if (k === 'user_id') continue;
        if (k === 'new_email') merged.email = v;
        else if (k === 'custom_profile_field') {
          const f = v as { id: number; value: string | null; rendered_value?: string };
          const data = { ...(merged.profile_data as Record<string, unknown>) };
          if (f.value === null) delete data[String(f.id)];
          else data[String(f.id)] = f.rendered_value === undefined ? { value: f.value } : { value: f.value, rendered_value: f.rendered_value };
          merged.profile_data = data;
        } else if (k in merged || k === 'avatar_url') merged[k] = v;
      }
      if ('role' in person) {
        const role = person.role as number;
        Object.assign(merged, { is_owner: role === 100, is_admin: role <= 200, is_guest: role === 600 });
      }
      at.list.splice(at.i, 1);
      if ('is_active' in person) (person.is_active ? active : inactive!).push(merged);
      else at.list.splice(at.i, 0, merged);
      if (person.user_id === state.user_id) applyOwn(state, person);
      return;
    }
  }
};

/** The register members about the user's own account. */
function applyOwn(state: Record<string, unknown>, person: Record<string, unknown>): void {
  if ('role' in person) {
    const role = person.role as number;
    Object.assign(state, { is_owner: role === 100, is_admin: role <= 200, is_moderator: role <= 300, is_guest: role === 600 });
  }
  if ('new_email' in person) state.email = person.new_email;
  for (const k of ['delivery_email', 'full_name', 'avatar_source', 'avatar_url', 'avatar_url_medium', 'avatar_version']) {
    if (k in person) state[k] = person[k];
  }
}

const userSettings: Reducer = (state, e) => {
  if (e.op === 'update' && state.user_settings) state.user_settings[e.property] = e.value;
};

const realm: Reducer = (state, e) => {
  if (e.op === 'update') state[`realm_${e.property}`] = e.value;
  if (e.op === 'update_dict') for (const [k, v] of Object.entries(e.data as object)) state[`realm_${k}`] = v;
};

export const coreReducers: Record<string, Reducer> = {
  realm_user: realmUser,
  user_settings: userSettings,
  realm,
  heartbeat: () => undefined,
};
