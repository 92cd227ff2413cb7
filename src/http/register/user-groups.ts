// The `realm_user_groups` member of POST /register: named groups (system groups included);
// deactivated ones only for clients declaring include_deactivated_groups.
import { listNamedGroups } from '../../actors/realm/group-access.js';
import type { StateProvider } from './state.js';

export const userGroupState: StateProvider = {
  types: ['user_group'],
  spectators: false,
  fetch(ctx) {
    return { realm_user_groups: listNamedGroups(ctx.realm.state, ctx.options.capabilities.include_deactivated_groups) };
  },
};
