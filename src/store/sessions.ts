// Browser sessions: one row per signed-in browser, keyed by the HMAC of its cookie token.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const at = (ms: number) => sql.fragment`to_timestamp(${ms / 1000})`;

export interface NewSession {
  readonly tokenHash: Buffer;
  readonly realmId: number;
  readonly userId: number;
  readonly nowMs: number;
  readonly expiresAtMs: number;
}

/** Store a new session, dropping the organization's expired ones on the way (they are never read again). */
export async function insertSession(db: CommonQueryMethods, s: NewSession): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM sessions WHERE realm_id = ${s.realmId} AND expires_at <= ${at(s.nowMs)}`);
  await db.query(sql.unsafe`
    INSERT INTO sessions (token_hash, realm_id, user_id, created_at, expires_at)
    VALUES (${sql.binary(s.tokenHash)}, ${s.realmId}, ${s.userId}, ${at(s.nowMs)}, ${at(s.expiresAtMs)})`);
}

/** The user of an unexpired session of this organization, or null. */
export function sessionUserId(db: CommonQueryMethods, realmId: number, tokenHash: Buffer, nowMs: number): Promise<number | null> {
  return db.maybeOneFirst(sql.type(z.object({ user_id: z.number() }))`
    SELECT user_id FROM sessions
    WHERE token_hash = ${sql.binary(tokenHash)} AND realm_id = ${realmId} AND expires_at > ${at(nowMs)}`);
}

export async function deleteSession(db: CommonQueryMethods, tokenHash: Buffer): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM sessions WHERE token_hash = ${sql.binary(tokenHash)}`);
}

/** End every session of these accounts (deactivation). Call inside the realm actor's transaction. */
export async function deleteUserSessions(db: CommonQueryMethods, userIds: readonly number[]): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM sessions WHERE user_id = ANY(${sql.array(userIds, 'int4')})`);
}

/** End every session of an organization (deactivation). Call inside the realm actor's transaction. */
export async function deleteRealmSessions(db: CommonQueryMethods, realmId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM sessions WHERE realm_id = ${realmId}`);
}

/** How many sessions an account has (tests and operations). */
export function countUserSessions(db: CommonQueryMethods, userId: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${userId}`);
}
