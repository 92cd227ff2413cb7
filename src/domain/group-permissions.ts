// The per-group permission settings of a user group (`can_*_group`), the system groups each may
// not be set to, their defaults, and the rules for group names. Pure: the realm actor applies
// them to its cached state.
import { SystemGroup, type SystemGroupName } from './system-groups.js';

export const GROUP_SETTING_NAMES = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type GroupSettingName = (typeof GROUP_SETTING_NAMES)[number];

export interface GroupPermissionRule {
  readonly name: GroupSettingName;
  /** System groups the setting may not be set to. */
  readonly forbidden: readonly SystemGroupName[];
  /** Guests never hold the permission when false, whatever the setting says. */
  readonly allowEveryone: boolean;
  /** Default for a new group: a system group, or 'creator' (an anonymous group of the creator). */
  readonly defaultForNew: SystemGroupName | 'creator';
  /** What the system role groups report (they cannot be changed through the API). */
  readonly defaultForSystemGroups: SystemGroupName;
}

export const GROUP_PERMISSION_RULES: Readonly<Record<GroupSettingName, GroupPermissionRule>> = {
  can_add_members_group: {
    name: 'can_add_members_group',
    forbidden: [SystemGroup.internet],
    allowEveryone: true,
    defaultForNew: 'creator',
    defaultForSystemGroups: SystemGroup.nobody,
  },
  can_join_group: {
    name: 'can_join_group',
    forbidden: [SystemGroup.internet],
    allowEveryone: true,
    defaultForNew: SystemGroup.nobody,
    defaultForSystemGroups: SystemGroup.nobody,
  },
  can_leave_group: {
    name: 'can_leave_group',
    forbidden: [SystemGroup.internet],
    allowEveryone: true,
    defaultForNew: SystemGroup.everyone,
    defaultForSystemGroups: SystemGroup.nobody,
  },
  can_manage_group: {
    name: 'can_manage_group',
    forbidden: [SystemGroup.internet, SystemGroup.everyone],
    allowEveryone: false,
    defaultForNew: 'creator',
    defaultForSystemGroups: SystemGroup.nobody,
  },
  can_mention_group: {
    name: 'can_mention_group',
    forbidden: [SystemGroup.internet, SystemGroup.owners],
    allowEveryone: true,
    defaultForNew: SystemGroup.everyone,
    defaultForSystemGroups: SystemGroup.everyone,
  },
  can_remove_members_group: {
    name: 'can_remove_members_group',
    forbidden: [SystemGroup.internet],
    allowEveryone: true,
    defaultForNew: SystemGroup.nobody,
    defaultForSystemGroups: SystemGroup.nobody,
  },
};

/** Organization-level group settings that exclude guests (their allow_everyone_group is false). */
export const REALM_SETTINGS_EXCLUDING_GUESTS: ReadonlySet<string> = new Set(['can_create_groups', 'can_manage_all_groups']);

export const MAX_GROUP_NAME_LENGTH = 100;
export const MAX_GROUP_DESCRIPTION_LENGTH = 1024;

/** Prefixes reserved for mention syntax and the system groups. */
const RESERVED_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

/** The problem with a proposed group name, or null when it is acceptable (uniqueness aside). */
export function groupNameProblem(name: string): string | null {
  if (name.trim().length === 0) return 'User group name cannot be empty.';
  if ([...name].length > MAX_GROUP_NAME_LENGTH) return `User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`;
  const prefix = RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `User group name cannot start with '${prefix}'.`;
  return null;
}

/** Feature levels at which the API admitted bots (spec, Versioning 5). */
export const BOT_CALLERS_LEVEL = 496;
export const BOT_MEMBERSHIP_TARGETS_LEVEL = 458;

/** Whether bots may call the user-group endpoints at this feature level. */
export const botsMayCallGroupEndpoints = (featureLevel: number): boolean => featureLevel >= BOT_CALLERS_LEVEL;

/** Whether the membership check answers for bot users at this feature level. */
export const botsAreMembershipTargets = (featureLevel: number): boolean => featureLevel >= BOT_MEMBERSHIP_TARGETS_LEVEL;
