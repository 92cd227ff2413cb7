// Users and bots. Call writes inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { bufferSchema as bytes } from '../domain/exact-check.js';
import { storedUserSettings, type UserSettings } from '../domain/user-settings.js';

export const userRow = z.object({
  id: z.number(),
  realm_id: z.number(),
  email: z.string(),
  delivery_email: z.string(),
  full_name: z.string(),
  role: z.number(),
  is_active: z.boolean(),
  is_bot: z.boolean(),
  bot_type: z.number().nullable(),
  bot_owner_id: z.number().nullable(),
  is_imported_stub: z.boolean(),
  date_joined: z.number(),
  timezone: z.string(),
  avatar_source: z.string(),
  avatar_version: z.number(),
  api_key_hash: bytes,
  can_change_user_emails: z.boolean(),
  can_create_users: z.boolean(),
  settings: z.unknown(),
});
export type UserRow = z.infer<typeof userRow>;

const columns = sql.fragment`id, realm_id, email, delivery_email, full_name, role, is_active, is_bot,
  bot_type, bot_owner_id, is_imported_stub, date_joined, timezone, avatar_source, avatar_version,
  api_key_hash, can_change_user_emails, can_create_users, settings`;

export interface NewUser {
  realmId: number;
  email: string;
  deliveryEmail: string;
  fullName: string;
  role: number;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  passwordHash: string | null;
  apiKeyHash: Buffer;
  apiKeySealed: Buffer;
  timezone?: string;
  settings?: UserSettings;
  /** Epoch milliseconds, by the server's clock (the waiting period counts from it). */
  dateJoinedMs: number;
}

export function insertUser(db: CommonQueryMethods, u: NewUser): Promise<UserRow> {
  return db.one(sql.type(userRow)`
    INSERT INTO users (realm_id, email, delivery_email, full_name, role, is_bot, bot_type, bot_owner_id,
                       password_hash, api_key_hash, api_key_sealed, timezone, settings, date_joined)
    VALUES (${u.realmId}, ${u.email}, ${u.deliveryEmail}, ${u.fullName}, ${u.role}, ${u.isBot}, ${u.botType},
            ${u.botOwnerId}, ${u.passwordHash}, ${sql.binary(u.apiKeyHash)}, ${sql.binary(u.apiKeySealed)},
            ${u.timezone ?? ''}, ${sql.jsonb(u.settings ? storedUserSettings(u.settings) : {})}, to_timestamp(${u.dateJoinedMs / 1000}))
    RETURNING ${columns}`);
}

export function listRealmUsers(db: CommonQueryMethods, realmId: number): Promise<readonly UserRow[]> {
  return db.any(sql.type(userRow)`SELECT ${columns} FROM users WHERE realm_id = ${realmId} ORDER BY id`);
}

export function getUser(db: CommonQueryMethods, id: number): Promise<UserRow> {
  return db.one(sql.type(userRow)`SELECT ${columns} FROM users WHERE id = ${id}`);
}

export function emailTaken(db: CommonQueryMethods, realmId: number, email: string): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM users WHERE realm_id = ${realmId}
      AND (lower(email) = lower(${email}) OR lower(delivery_email) = lower(${email}))`);
}

const credentialRow = z.object({ password_hash: z.string().nullable(), api_key_sealed: bytes });

export function getCredentials(db: CommonQueryMethods, userId: number) {
  return db.one(sql.type(credentialRow)`SELECT password_hash, api_key_sealed FROM users WHERE id = ${userId}`);
}

export async function setApiKey(db: CommonQueryMethods, userId: number, hash: Buffer, sealed: Buffer): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE users SET api_key_hash = ${sql.binary(hash)}, api_key_sealed = ${sql.binary(sealed)} WHERE id = ${userId}`);
}

export async function setPasswordHash(db: CommonQueryMethods, userId: number, hash: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE users SET password_hash = ${hash} WHERE id = ${userId}`);
}

export async function setApiEmail(db: CommonQueryMethods, userId: number, email: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE users SET email = ${email} WHERE id = ${userId}`);
}

export async function setRole(db: CommonQueryMethods, userId: number, role: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE users SET role = ${role} WHERE id = ${userId}`);
}

export async function setActive(db: CommonQueryMethods, userId: number, active: boolean): Promise<void> {
  await db.query(sql.unsafe`UPDATE users SET is_active = ${active} WHERE id = ${userId}`);
}

/** The account fields that change after creation; only the given ones are written. */
export interface UserPatch {
  readonly email?: string;
  readonly delivery_email?: string;
  readonly full_name?: string;
  readonly timezone?: string;
  readonly avatar_source?: string;
  readonly avatar_version?: number;
  readonly bot_owner_id?: number;
  readonly can_change_user_emails?: boolean;
  readonly can_create_users?: boolean;
  readonly settings?: UserSettings;
}

export async function updateUser(db: CommonQueryMethods, userId: number, patch: UserPatch): Promise<void> {
  const sets = Object.entries(patch)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => sql.fragment`${sql.identifier([k])} = ${k === 'settings' ? sql.jsonb(storedUserSettings(v as UserSettings)) : (v as string | number | boolean)}`);
  if (sets.length === 0) return;
  await db.query(sql.unsafe`UPDATE users SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${userId}`);
}

const sealedRow = z.object({ id: z.number(), api_key_sealed: bytes });

/** The sealed API keys of these accounts, by id (bot keys for their administrators). */
export async function sealedApiKeys(db: CommonQueryMethods, ids: readonly number[]): Promise<Map<number, Buffer>> {
  if (ids.length === 0) return new Map();
  const rows = await db.any(sql.type(sealedRow)`
    SELECT id, api_key_sealed FROM users WHERE id = ANY(${sql.array([...ids], 'int4')})`);
  return new Map(rows.map((r) => [r.id, r.api_key_sealed]));
}

/**
 * Many members at once (bulk seeding): one statement for every row, all with the same role and
 * settings, no password. Returns the rows in the order given.
 */
export async function insertMembers(
  db: CommonQueryMethods,
  realmId: number,
  role: number,
  settings: UserSettings,
  rows: ReadonlyArray<{ readonly email: string; readonly fullName: string; readonly apiKeyHash: Buffer; readonly apiKeySealed: Buffer }>,
  dateJoinedMs: number,
): Promise<readonly UserRow[]> {
  const hex = (b: Buffer) => b.toString('hex');
  const inserted = await db.any(sql.type(userRow)`
    INSERT INTO users (realm_id, email, delivery_email, full_name, role, is_bot, api_key_hash, api_key_sealed, settings, date_joined)
    SELECT ${realmId}, r.email, r.email, r.full_name, ${role}, false, decode(r.hash, 'hex'), decode(r.sealed, 'hex'),
           ${sql.jsonb(storedUserSettings(settings))}, to_timestamp(${dateJoinedMs / 1000})
    FROM unnest(${sql.array(rows.map((r) => r.email), 'text')}::text[], ${sql.array(rows.map((r) => r.fullName), 'text')}::text[],
                ${sql.array(rows.map((r) => hex(r.apiKeyHash)), 'text')}::text[], ${sql.array(rows.map((r) => hex(r.apiKeySealed)), 'text')}::text[])
         WITH ORDINALITY AS r(email, full_name, hash, sealed, n)
    ORDER BY r.n
    RETURNING ${columns}`);
  return [...inserted].sort((a, b) => a.id - b.id);
}

/** Set many users' API emails at once (hidden addresses depend on the id). */
export async function setEmails(db: CommonQueryMethods, ids: readonly number[], emails: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE users SET email = v.email
    FROM unnest(${sql.array(ids, 'int4')}::int[], ${sql.array(emails, 'text')}::text[]) AS v(id, email)
    WHERE users.id = v.id`);
}
