// Uploaded files' records and which messages reference them. Writes run in the actor that owns
// the uploader's personal data.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const attachmentRow = z.object({
  id: z.number(),
  realm_id: z.number(),
  owner_id: z.number(),
  path_id: z.string(),
  file_name: z.string(),
  content_type: z.string(),
  size: z.number(),
  create_time: z.number(),
  message_ids: z.array(z.number()),
});
export type AttachmentRecord = z.infer<typeof attachmentRow>;

const columns = sql.fragment`a.id, a.realm_id, a.owner_id, a.path_id, a.file_name, a.content_type, a.size, a.create_time,
  coalesce((SELECT array_agg(am.message_id ORDER BY am.message_id) FROM attachment_messages am WHERE am.attachment_id = a.id), '{}') AS message_ids`;

export interface NewAttachment {
  readonly realmId: number;
  readonly ownerId: number;
  readonly pathId: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly size: number;
  readonly nowMs: number;
}

/** Record an upload, and count its bytes in its organization's (realm_upload_space). */
export async function insertAttachment(db: CommonQueryMethods, a: NewAttachment): Promise<AttachmentRecord> {
  const record = await db.one(sql.type(attachmentRow)`
    WITH a AS (
      INSERT INTO attachments (realm_id, owner_id, path_id, file_name, content_type, size, create_time)
      VALUES (${a.realmId}, ${a.ownerId}, ${a.pathId}, ${a.fileName}, ${a.contentType}, ${a.size}, to_timestamp(${a.nowMs / 1000}))
      RETURNING *
    ) SELECT a.id, a.realm_id, a.owner_id, a.path_id, a.file_name, a.content_type, a.size, a.create_time, '{}'::bigint[] AS message_ids FROM a`);
  await db.query(sql.unsafe`
    INSERT INTO realm_upload_space (realm_id, bytes) VALUES (${a.realmId}, ${a.size})
    ON CONFLICT (realm_id) DO UPDATE SET bytes = realm_upload_space.bytes + EXCLUDED.bytes`);
  return record;
}

export function attachmentByPath(db: CommonQueryMethods, realmId: number, pathId: string): Promise<AttachmentRecord | null> {
  return db.maybeOne(sql.type(attachmentRow)`SELECT ${columns} FROM attachments a WHERE a.realm_id = ${realmId} AND a.path_id = ${pathId}`);
}

export function attachmentById(db: CommonQueryMethods, id: number): Promise<AttachmentRecord | null> {
  return db.maybeOne(sql.type(attachmentRow)`SELECT ${columns} FROM attachments a WHERE a.id = ${id}`);
}

export function attachmentsOf(db: CommonQueryMethods, ownerId: number): Promise<readonly AttachmentRecord[]> {
  return db.any(sql.type(attachmentRow)`SELECT ${columns} FROM attachments a WHERE a.owner_id = ${ownerId} ORDER BY a.id`);
}

/** Remove an upload's record (its links go with it), and its bytes from its organization's. */
export async function deleteAttachment(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`
    WITH a AS (DELETE FROM attachments WHERE id = ${id} RETURNING realm_id, size)
    UPDATE realm_upload_space s SET bytes = s.bytes - a.size FROM a WHERE s.realm_id = a.realm_id`);
}

/**
 * Lock the uploads that `pathIds` name, or that `messageIds` reference, in id order, before their
 * links change: a transaction that reads an upload's messages after changing them then sees every
 * committed change, and two such transactions cannot each wait for the other. Returns their ids.
 */
export async function lockAttachments(
  db: CommonQueryMethods,
  realmId: number,
  o: { pathIds?: readonly string[]; messageIds?: readonly number[] },
): Promise<readonly number[]> {
  const pathIds = o.pathIds ?? [];
  const messageIds = o.messageIds ?? [];
  if (pathIds.length === 0 && messageIds.length === 0) return [];
  // Each half by its own index (an OR of the two would scan the organization's uploads).
  return db.anyFirst(sql.type(z.object({ id: z.number() }))`
    SELECT a.id FROM attachments a
    WHERE a.id IN (
      SELECT id FROM attachments WHERE realm_id = ${realmId} AND path_id = ANY(${sql.array(pathIds, 'text')})
      UNION SELECT attachment_id FROM attachment_messages WHERE message_id = ANY(${sql.array(messageIds, 'int8')}))
    ORDER BY a.id FOR UPDATE`);
}

export function attachmentsByIds(db: CommonQueryMethods, ids: readonly number[]): Promise<readonly AttachmentRecord[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.any(sql.type(attachmentRow)`SELECT ${columns} FROM attachments a WHERE a.id = ANY(${sql.array(ids, 'int4')}) ORDER BY a.id`);
}

/** Bytes uploaded in the organization. */
export async function spaceUsed(db: CommonQueryMethods, realmId: number): Promise<number> {
  const bytes = await db.maybeOneFirst(sql.type(z.object({ bytes: z.number() }))`SELECT bytes FROM realm_upload_space WHERE realm_id = ${realmId}`);
  return bytes ?? 0;
}

/** The messages referencing a file, with whether the viewer received each. */
export function referencingMessages(
  db: CommonQueryMethods,
  attachmentId: number,
  viewerId: number,
): Promise<readonly { message_id: number; channel_id: number | null; received: boolean }[]> {
  return db.any(sql.type(z.object({ message_id: z.number(), channel_id: z.number().nullable(), received: z.boolean() }))`
    SELECT m.id AS message_id, m.channel_id,
           EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ${viewerId}) AS received
    FROM attachment_messages am JOIN messages m ON m.id = am.message_id
    WHERE am.attachment_id = ${attachmentId}`);
}
