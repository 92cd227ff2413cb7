// Every resource's reducers, one line each.
import { channelFolderReducers } from './channel-folders.js';
import { coreReducers } from './core.js';
import { inviteReducers } from './invites.js';
import { presenceReducers } from './presence.js';
import type { ClientEventJson, Reducer, RegisterState } from './types.js';
import { userGroupReducers } from './user-groups.js';

export const reducers: Record<string, Reducer> = {
  ...coreReducers,
  ...userGroupReducers,
  ...channelFolderReducers,
  ...presenceReducers,
  ...inviteReducers,
};

export function applyEvents(state: RegisterState, events: readonly ClientEventJson[]): RegisterState {
  const next = structuredClone(state);
  for (const e of events) {
    const r = reducers[e.type];
    if (!r) throw new Error(`No reducer for event type '${e.type}' (add one under test/helpers/reducers)`);
    r(next, e);
  }
  return next;
}
