// `server_supported_permission_settings` of POST /register: for every group-valued setting of an
// organization, a channel and a user group, which values it may take and its default. Built from
// the same tables the validation reads (realm-settings.ts, channels.ts, group-permissions.ts), so
// what clients are offered is what the server accepts.
import { CHANNEL_GROUP_DEFAULTS, CHANNEL_GROUP_SETTINGS, NON_GUEST_SETTINGS } from './channels.js';
import { GROUP_PERMISSION_RULES, GROUP_SETTING_NAMES } from './group-permissions.js';
import { REALM_GROUP_SETTING_DEFAULTS, REALM_GROUP_SETTING_RULES } from './realm-settings.js';
import { SYSTEM_GROUPS, SystemGroup, type SystemGroupName } from './system-groups.js';

export interface PermissionSetting {
  readonly require_system_group: boolean;
  readonly allow_internet_group: boolean;
  readonly allow_nobody_group: boolean;
  readonly allow_everyone_group: boolean;
  readonly default_group_name: string;
  readonly default_for_system_groups: string | null;
  readonly allowed_system_groups: string[];
}

/** Every system group but role:internet, role:everyone and role:nobody (which have flags of their own). */
const ROLE_GROUPS: readonly SystemGroupName[] = SYSTEM_GROUPS.map((g) => g.name).filter(
  (n) => n !== SystemGroup.internet && n !== SystemGroup.everyone && n !== SystemGroup.nobody,
);

function setting(forbidden: readonly SystemGroupName[], o: { systemOnly?: boolean; defaultName: string; defaultForSystem?: string }): PermissionSetting {
  const allowed = (g: SystemGroupName) => !forbidden.includes(g);
  // The list is only given when a role group is refused: otherwise the flags say it all.
  const restricted = ROLE_GROUPS.some((g) => !allowed(g));
  return {
    require_system_group: o.systemOnly ?? false,
    allow_internet_group: allowed(SystemGroup.internet),
    allow_nobody_group: allowed(SystemGroup.nobody),
    allow_everyone_group: allowed(SystemGroup.everyone),
    default_group_name: o.defaultName,
    default_for_system_groups: o.defaultForSystem ?? null,
    allowed_system_groups: restricted ? SYSTEM_GROUPS.map((g) => g.name).filter(allowed) : [],
  };
}

function build(): { realm: Record<string, PermissionSetting>; stream: Record<string, PermissionSetting>; group: Record<string, PermissionSetting> } {
  const realm: Record<string, PermissionSetting> = {};
  for (const [name, dflt] of Object.entries(REALM_GROUP_SETTING_DEFAULTS)) {
    const rule = REALM_GROUP_SETTING_RULES[name] ?? {};
    realm[name] = setting(rule.forbidden ?? [SystemGroup.internet], { systemOnly: rule.systemGroupsOnly, defaultName: dflt });
  }
  const stream: Record<string, PermissionSetting> = {};
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const forbidden = NON_GUEST_SETTINGS.has(name) ? [SystemGroup.internet, SystemGroup.everyone] : [SystemGroup.internet];
    const dflt = CHANNEL_GROUP_DEFAULTS[name];
    stream[name] = setting(forbidden, { defaultName: dflt === 'creator' ? 'channel_creator' : dflt });
  }
  const group: Record<string, PermissionSetting> = {};
  for (const name of GROUP_SETTING_NAMES) {
    const rule = GROUP_PERMISSION_RULES[name];
    const forbidden = rule.allowEveryone ? rule.forbidden : [...rule.forbidden, SystemGroup.everyone];
    group[name] = setting(forbidden, {
      defaultName: rule.defaultForNew === 'creator' ? 'group_creator' : rule.defaultForNew,
      defaultForSystem: rule.defaultForSystemGroups,
    });
  }
  return { realm, stream, group };
}

export const SERVER_SUPPORTED_PERMISSION_SETTINGS = build();
