// Every resource's reducers, one line each.
import { channelFolderReducers } from './channel-folders.js';
import { channelReducers } from './channels.js';
import { coreReducers } from './core.js';
import { inviteReducers } from './invites.js';
import { messageReducers } from './messages.js';
import { personalReducers } from './personal.js';
import { presenceReducers } from './presence.js';
import { realmReducers } from './realm.js';
import type { ClientEventJson, Reducer, RegisterState } from './types.js';
import { userGroupReducers } from './user-groups.js';
import { userReducers } from './users.js';

export const reducers: Record<string, Reducer> = {
  ...coreReducers,
  ...channelReducers,
  ...messageReducers,
  ...userReducers,
  ...realmReducers,
  ...personalReducers,
  ...userGroupReducers,
  ...channelFolderReducers,
  ...presenceReducers,
  ...inviteReducers,
};

export function applyEvents(state: RegisterState, events: readonly ClientEventJson[], me: number): RegisterState {
  const next = structuredClone(state);
  for (const e of events) {
    const r = reducers[e.type];
    if (!r) throw new Error(`No reducer for event type '${e.type}' (add one under test/helpers/reducers)`);
    r(next, e, me);
  }
  return next;
}
