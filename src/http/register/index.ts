// The state providers of POST /register, one line per resource.
import { channelFolderState } from './channel-folders.js';
import { presenceState } from './presence.js';
import { realmState } from './realm.js';
import type { StateProvider } from './state.js';
import { userGroupState } from './user-groups.js';
import { realmUserState, userSettingsState } from './users.js';

export const stateProviders: readonly StateProvider[] = [
  realmState,
  realmUserState,
  userSettingsState,
  userGroupState,
  channelFolderState,
  presenceState,
];
