// A cast of users of every kind in one organization, for table-driven permission tests, and a
// way to change organization-level group settings before their endpoint exists.
import { sql } from 'slonik';
import type { SystemGroupName } from '../../src/domain/system-groups.js';
import { Role } from '../../src/domain/roles.js';
import { updateRealmSettings } from '../../src/store/realms.js';
import type { TestRealm, TestUser } from './server.js';

export interface Cast {
  readonly owner: TestUser;
  readonly admin: TestUser;
  readonly moderator: TestUser;
  readonly member: TestUser;
  readonly guest: TestUser;
  readonly bot: TestUser;
}

export type CastRole = keyof Cast;
export const CAST_ROLES: readonly CastRole[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

export async function createCast(realm: TestRealm): Promise<Cast> {
  const member = await realm.createUser({ role: Role.member, name: 'Mia Member' });
  return {
    owner: realm.owner,
    admin: await realm.createUser({ role: Role.administrator, name: 'Ada Admin' }),
    moderator: await realm.createUser({ role: Role.moderator, name: 'Max Moderator' }),
    member,
    guest: await realm.createUser({ role: Role.guest, name: 'Gus Guest' }),
    bot: await realm.createUser({ bot: true, botOwnerId: member.id, name: 'Bob Bot' }),
  };
}

/** The id of a system group of the organization. */
export const systemGroup = (realm: TestRealm, name: SystemGroupName): number => realm.handle.state.systemGroupId(name);

/** Point an organization-level group setting at a group (stands in for the realm settings endpoint). */
export async function setRealmGroupSetting(realm: TestRealm, setting: string, groupId: number): Promise<void> {
  const settings = realm.handle.state.realm.settings;
  await updateRealmSettings(realm.server.db.pool, realm.id, { ...settings, groups: { ...settings.groups, [setting]: groupId } });
  await realm.handle.reload();
}

/** Change a personal setting in the database and the cached state (stands in for the settings endpoint). */
export async function setUserSetting(user: TestUser, setting: string, value: unknown): Promise<void> {
  const realm = user.realm;
  const settings = { ...realm.handle.state.user(user.id)!.settings, [setting]: value };
  await realm.server.db.pool.query(sql.unsafe`UPDATE users SET settings = ${sql.jsonb(settings as never)} WHERE id = ${user.id}`);
  await realm.handle.reload();
}

/** Change an organization setting (not group-valued) in the database and the cached state. */
export async function setRealmSetting(realm: TestRealm, setting: string, value: unknown): Promise<void> {
  const settings = realm.handle.state.realm.settings;
  await updateRealmSettings(realm.server.db.pool, realm.id, { ...settings, [setting]: value });
  await realm.handle.reload();
}
