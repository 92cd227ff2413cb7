// The realm actor's command table: one spread per resource module. A command is
// `(ctx: RealmContext, input) => Promise<output>`; RealmHandle.ask is typed from this table.
import { channelFolderCommands } from './channel-folders.js';
import { fullMemberCommands } from './full-members.js';
import { groupCommands } from './groups.js';
import { invitationCommands } from './invitations.js';
import { pushCommands } from './push-devices.js';
import { botCommands } from './bots.js';
import { personalCommands } from './personal.js';
import { profileFieldCommands } from './profile-fields.js';
import { realmContentCommands } from './realm-content.js';
import { lifecycleCommands } from './lifecycle.js';
import { realmSettingsCommands } from './realm-settings.js';
import { signUpCommands } from './sign-up.js';
import { userProfileCommands } from './user-profile.js';
import { userCommands } from './users.js';
import { userSeedCommands } from './user-seed.js';
import { channelCommands } from './channels.js';
import { subscriptionCommands } from './subscriptions.js';
import { systemBotCommands } from './system-bots.js';

export const realmCommands = {
  ...userCommands,
  ...userSeedCommands,
  ...groupCommands,
  ...fullMemberCommands,
  ...channelFolderCommands,
  ...pushCommands,
  ...invitationCommands,
  ...signUpCommands,
  ...channelCommands,
  ...subscriptionCommands,
  ...systemBotCommands,
  ...userProfileCommands,
  ...botCommands,
  ...profileFieldCommands,
  ...realmSettingsCommands,
  ...lifecycleCommands,
  ...realmContentCommands,
  ...personalCommands,
};

type Commands = typeof realmCommands;
export type CommandName = keyof Commands;
export type CommandInput<K extends CommandName> = Parameters<Commands[K]>[1];
export type CommandOutput<K extends CommandName> = Awaited<ReturnType<Commands[K]>>;
