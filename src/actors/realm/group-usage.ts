// Where a named group is still in use, so that deactivating it would change who holds a
// permission: organization settings, other groups' settings, channel settings (directly or
// through an anonymous group that nests it) and active supergroups. Call inside the realm actor.
import { GROUP_SETTING_NAMES } from '../../domain/group-permissions.js';
import { groupSettingId } from './group-access.js';
import type { GroupRecord, RealmState } from './state.js';

export function groupObjections(state: RealmState, g: GroupRecord): Record<string, unknown>[] {
  // The group itself and every anonymous group (a setting value) that nests it.
  const refs = new Set([g.id]);
  for (const a of state.groups.values()) if (a.name === null && a.subgroups.has(g.id)) refs.add(a.id);

  const objections: Record<string, unknown>[] = [];
  const realmSettings = Object.entries(state.realm.settings.groups)
    .filter(([, id]) => refs.has(id))
    .map(([setting]) => setting)
    .sort();
  if (realmSettings.length > 0) objections.push({ type: 'realm', settings: realmSettings });

  const channels = [...state.channels.all()].filter((c) => !c.is_archived).sort((a, b) => a.id - b.id);
  for (const c of channels) {
    const settings = Object.entries(c.settings)
      .filter(([, id]) => refs.has(id))
      .map(([setting]) => setting)
      .sort();
    if (settings.length > 0) objections.push({ type: 'channel', channel_id: c.id, settings });
  }

  const supergroups: number[] = [];
  for (const other of state.groups.values()) {
    if (other.name === null || other.id === g.id || other.deactivated) continue;
    if (!other.is_system_group) {
      const settings = GROUP_SETTING_NAMES.filter((s) => refs.has(groupSettingId(state, other, s)));
      if (settings.length > 0) objections.push({ type: 'user_group', group_id: other.id, settings });
    }
    if (other.subgroups.has(g.id)) supergroups.push(other.id);
  }
  if (supergroups.length > 0) objections.push({ type: 'subgroup', supergroup_ids: supergroups.sort((a, b) => a - b) });
  return objections;
}
