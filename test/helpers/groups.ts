// Group helpers for tests: system group ids, and pointing an organization-level group setting at
// any group (TestRealm.setGroupSetting takes system groups only).
import type { SystemGroupName } from '../../src/domain/system-groups.js';
import type { TestRealm } from './server.js';

/** The id of a system group of the organization. */
export const systemGroup = (realm: TestRealm, name: SystemGroupName): number => realm.handle.state.systemGroupId(name);

/** Point an organization-level group setting at a group of any kind. */
export async function setRealmGroupSetting(realm: TestRealm, setting: string, groupId: number): Promise<void> {
  await realm.updateSettings({ groups: { ...realm.handle.state.realm.settings.groups, [setting]: groupId } });
}
