// Helpers for channel and message tests: one user per role, channel creation, sending.
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole, type RoleName } from './roles.js';
import { assertSuccess } from './assert.js';
import { sql } from 'slonik';
import { z } from 'zod';
import type { Params, TestRealm, TestServer, TestUser } from './server.js';

export type Cast = OneOfEachRole;
export { ROLE_NAMES, type RoleName };

/** One user of each role (the bot is owned by the member). */
export const castOf = (realm: TestRealm): Promise<Cast> => oneOfEachRole(realm, { botOwner: 'member' });

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

/** A channel topic's messages as `viewer` reads them, oldest first, as "sender: content" (the Markdown source). */
export async function topicLog(viewer: TestUser, channelId: number, topic: string): Promise<string[]> {
  const narrow = [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: topic }];
  const r = assertSuccess(await viewer.get('/api/v1/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow, apply_markdown: false }));
  return (r.messages as Array<{ content: string; sender_full_name: string }>).map((m) => `${m.sender_full_name}: ${m.content}`);
}

/** The contents of Welcome Bot's messages to a user, oldest first (read in the database: only the user may read them). */
export function welcomeMessagesTo(server: TestServer, userId: number): Promise<readonly string[]> {
  return server.db.pool.anyFirst(sql.type(z.object({ content: z.string() }))`
    SELECT m.content FROM messages m JOIN user_messages um ON um.message_id = m.id JOIN users s ON s.id = m.sender_id
    WHERE um.user_id = ${userId} AND s.full_name = 'Welcome Bot' ORDER BY m.id`);
}
