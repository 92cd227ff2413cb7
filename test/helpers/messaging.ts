// Helpers for channel and message tests: one user per role, channel creation, sending.
import { Role } from '../../src/domain/roles.js';
import { assertSuccess } from './assert.js';
import type { Params, TestRealm, TestUser } from './server.js';

export interface Cast {
  readonly owner: TestUser;
  readonly admin: TestUser;
  readonly moderator: TestUser;
  readonly member: TestUser;
  readonly guest: TestUser;
  readonly bot: TestUser;
}

export type RoleName = keyof Cast;
export const ROLE_NAMES: readonly RoleName[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

/** One user of each role (the bot is owned by the member). */
export async function castOf(realm: TestRealm): Promise<Cast> {
  const admin = await realm.createUser({ role: Role.administrator, name: 'Ada Admin' });
  const moderator = await realm.createUser({ role: Role.moderator, name: 'Mo Moderator' });
  const member = await realm.createUser({ role: Role.member, name: 'Mel Member' });
  const guest = await realm.createUser({ role: Role.guest, name: 'Gus Guest' });
  const bot = await realm.createUser({ bot: true, name: 'Bo Bot', botOwnerId: member.id });
  return { owner: realm.owner, admin, moderator, member, guest, bot };
}

/** Create a channel (subscribing `by`, and `others`); returns its id. */
export async function createChannel(by: TestUser, name: string, o: Params & { others?: TestUser[] } = {}): Promise<number> {
  const { others, ...params } = o;
  const principals = others ? [by.id, ...others.map((u) => u.id)] : undefined;
  assertSuccess(await by.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }], principals, ...params }));
  return by.realm.handle.state.channels.byName(name)!.id;
}

export async function subscribe(u: TestUser, name: string): Promise<void> {
  assertSuccess(await u.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }] }));
}

export async function sendToChannel(u: TestUser, channel: string | number, topic: string, content: string, extra: Params = {}): Promise<number> {
  const r = assertSuccess(await u.post('/api/v1/messages', { type: 'stream', to: String(channel), topic, content, ...extra }));
  return r.id as number;
}

export async function sendDirect(u: TestUser, to: readonly TestUser[], content: string, extra: Params = {}): Promise<number> {
  const r = assertSuccess(await u.post('/api/v1/messages', { type: 'direct', to: to.map((x) => x.id), content, ...extra }));
  return r.id as number;
}

/** Deactivate a user through the realm actor. */
export async function deactivate(u: TestUser): Promise<void> {
  await u.realm.handle.ask('user.setActive', { userId: u.id, active: false, actorId: null });
}
