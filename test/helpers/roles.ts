// One user of every role in an organization: the cast of the permission tables.
import { Role } from '../../src/domain/roles.js';
import type { TestRealm, TestUser } from './server.js';

export interface OneOfEachRole {
  readonly owner: TestUser;
  readonly admin: TestUser;
  readonly moderator: TestUser;
  readonly member: TestUser;
  readonly guest: TestUser;
  readonly bot: TestUser;
}

export type RoleName = keyof OneOfEachRole;
export const ROLE_NAMES: readonly RoleName[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

/** The realm's owner plus one new user of each other role; the bot belongs to `botOwner`. */
export async function oneOfEachRole(realm: TestRealm, o: { botOwner?: 'owner' | 'member' } = {}): Promise<OneOfEachRole> {
  const admin = await realm.createUser({ role: Role.administrator, name: 'Ada Admin' });
  const moderator = await realm.createUser({ role: Role.moderator, name: 'Mo Moderator' });
  const member = await realm.createUser({ role: Role.member, name: 'Mel Member' });
  const guest = await realm.createUser({ role: Role.guest, name: 'Gus Guest' });
  const bot = await realm.createUser({ bot: true, name: 'Bo Bot', botOwnerId: (o.botOwner === 'member' ? member : realm.owner).id });
  return { owner: realm.owner, admin, moderator, member, guest, bot };
}
