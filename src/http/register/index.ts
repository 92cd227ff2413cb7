// The state providers of POST /register, one line per resource.
import { realmState } from './realm.js';
import type { StateProvider } from './state.js';
import { realmUserState, userSettingsState } from './users.js';
import { defaultStreamState, streamState, subscriptionState } from './channels.js';
import { messageState, recentPrivateState, starredState, userTopicState } from './messages.js';

export const stateProviders: readonly StateProvider[] = [
  realmState,
  realmUserState,
  userSettingsState,
  subscriptionState,
  streamState,
  defaultStreamState,
  messageState,
  starredState,
  recentPrivateState,
  userTopicState,
];
