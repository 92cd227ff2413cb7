// Muted users: whom each user muted. Writes happen in the realm actor's transaction; the realm
// state keeps them all (a send asks who muted its sender).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const muteRow = z.object({ user_id: z.number(), muted_user_id: z.number(), date_muted: z.number() });
export type MuteRow = z.infer<typeof muteRow>;

/** Every mute of an organization's users, oldest first. */
export function listRealmMutes(db: CommonQueryMethods, realmId: number): Promise<readonly MuteRow[]> {
  return db.any(sql.type(muteRow)`
    SELECT m.user_id, m.muted_user_id, m.date_muted FROM muted_users m JOIN users u ON u.id = m.user_id
    WHERE u.realm_id = ${realmId} ORDER BY m.date_muted, m.muted_user_id`);
}

export async function insertMute(db: CommonQueryMethods, userId: number, mutedUserId: number, nowMs: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES (${userId}, ${mutedUserId}, to_timestamp(${nowMs / 1000}))`);
}

export async function deleteMute(db: CommonQueryMethods, userId: number, mutedUserId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM muted_users WHERE user_id = ${userId} AND muted_user_id = ${mutedUserId}`);
}
