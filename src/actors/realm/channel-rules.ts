// Checks shared by channel creation and update, run in the realm actor before any write: who may
// create which kind of channel, and which group-setting values a channel accepts.
import {
  NON_GUEST_SETTINGS,
  type ChannelGroupSetting,
  type TopicsPolicy,
} from '../../domain/channels.js';
import { errors } from '../../domain/errors.js';
import { isAdmin, isOwner } from '../../domain/roles.js';
import { SystemGroup } from '../../domain/system-groups.js';
import { checkGroupSetting, type GroupSettingInput } from './group-settings.js';
import type { RealmState, UserRecord } from './state.js';

export interface ChannelKind {
  readonly inviteOnly: boolean;
  readonly isWebPublic: boolean;
  readonly historyPublic: boolean;
  readonly isDefault: boolean;
  /** Present when the request sets a retention period (owners only). */
  readonly messageRetentionDays: number | null | undefined;
}

/** Throws unless `actor` may create a channel of this kind. */
export function checkCreationPermission(state: RealmState, actor: UserRecord, k: ChannelKind): void {
  const may = (setting: string) => state.hasRealmPermission(actor.id, setting);
  if (k.inviteOnly && !may('can_create_private_channel_group')) throw errors.insufficientPermission();
  if (!k.inviteOnly && !may('can_create_public_channel_group')) throw errors.insufficientPermission();
  if (k.isDefault && !isAdmin(actor.role)) throw errors.insufficientPermission();
  if (k.inviteOnly && k.isDefault) throw errors.badRequest('A default channel cannot be private.');
  checkWebPublic(state, actor, k.isWebPublic);
  if (k.messageRetentionDays !== undefined && !isOwner(actor.role)) throw errors.mustBeOwner();
}

export function checkWebPublic(state: RealmState, actor: UserRecord, isWebPublic: boolean): void {
  if (!isWebPublic) return;
  if (!state.realm.settings.enable_spectator_access) throw errors.badRequest('Web-public channels are not enabled.');
  if (!state.hasRealmPermission(actor.id, 'can_create_web_public_channel_group')) throw errors.insufficientPermission();
}

/** A channel's group setting value: valid groups, never everyone for the access-granting ones. */
export function checkChannelGroupSetting(
  state: RealmState,
  actor: UserRecord,
  setting: ChannelGroupSetting,
  value: GroupSettingInput,
): void {
  checkGroupSetting(state, value, {
    name: setting,
    forbidden: NON_GUEST_SETTINGS.has(setting) ? [SystemGroup.internet, SystemGroup.everyone] : [SystemGroup.internet],
  });
  if (
    (setting === 'can_delete_any_message_group' || setting === 'can_delete_own_message_group') &&
    value !== state.systemGroupId(SystemGroup.nobody) &&
    !state.hasRealmPermission(actor.id, 'can_set_delete_message_policy_group')
  ) {
    throw errors.insufficientPermission();
  }
}

/** Channels with protected history must let everyone start topics (or nobody could see them). */
export function checkCreateTopicGroup(state: RealmState, historyPublic: boolean, value: GroupSettingInput): void {
  if (historyPublic) return;
  if (value !== state.systemGroupId(SystemGroup.everyone)) {
    throw errors.incompatibleParameters(['history_public_to_subscribers', 'can_create_topic_group']);
  }
}

export function checkTopicsPolicyPermission(state: RealmState, actor: UserRecord, policy: TopicsPolicy | undefined): void {
  if (policy !== undefined && policy !== 'inherit' && !state.hasRealmPermission(actor.id, 'can_set_topics_policy_group')) {
    throw errors.insufficientPermission();
  }
}

/** Message retention: a positive number of days, -1 for unlimited, null for the organization's. */
export function checkRetentionDays(value: number | null): number | null {
  if (value === null || value === -1 || value > 0) return value;
  throw errors.badRequest('Bad value for \'message_retention_days\': ' + String(value));
}
