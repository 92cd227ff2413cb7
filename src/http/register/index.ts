// The state providers of POST /register, one line per resource.
import { channelFolderState } from './channel-folders.js';
import { presenceState } from './presence.js';
import {
  alertWordsState,
  devicesState,
  draftsState,
  mutedUsersState,
  navigationViewsState,
  remindersState,
  savedSnippetsState,
  scheduledMessagesState,
  userStatusState,
} from './personal.js';
import { profileFieldState } from './profile-fields.js';
import { realmState } from './realm.js';
import { linkifierState, realmEmojiState } from './realm-content.js';
import { realmDomainsState, realmPlaygroundsState, realmUserDefaultsState } from './realm-extras.js';
import type { StateProvider } from './state.js';
import { userGroupState } from './user-groups.js';
import { realmBotState, realmUserState, userSettingsState } from './users.js';
import { defaultStreamState, streamState, subscriptionState } from './channels.js';
import { messageState, recentPrivateState, starredState, userTopicState } from './messages.js';

// One line per resource.
export const stateProviders: readonly StateProvider[] = [
  realmState,
  realmUserState,
  userSettingsState,
  userGroupState,
  channelFolderState,
  presenceState,
  realmBotState,
  profileFieldState,
  realmDomainsState,
  realmPlaygroundsState,
  realmUserDefaultsState,
  realmEmojiState,
  linkifierState,
  alertWordsState,
  draftsState,
  scheduledMessagesState,
  remindersState,
  mutedUsersState,
  userStatusState,
  savedSnippetsState,
  navigationViewsState,
  devicesState,
  subscriptionState,
  streamState,
  defaultStreamState,
  messageState,
  starredState,
  recentPrivateState,
  userTopicState,
];
