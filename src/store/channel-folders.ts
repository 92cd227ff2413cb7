// Channel folders of an organization. Writes run inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const folderRow = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  creator_id: z.number().nullable(),
  date_created: z.number(),
  is_archived: z.boolean(),
  sort_order: z.number(),
});
export type FolderRow = z.infer<typeof folderRow>;

const columns = sql.fragment`id, name, description, rendered_description, creator_id, date_created, is_archived, sort_order`;

/** Folders in display order. */
export function listFolders(db: CommonQueryMethods, realmId: number, includeArchived = true): Promise<readonly FolderRow[]> {
  const archived = includeArchived ? sql.fragment`true` : sql.fragment`NOT is_archived`;
  return db.any(sql.type(folderRow)`
    SELECT ${columns} FROM channel_folders WHERE realm_id = ${realmId} AND ${archived} ORDER BY sort_order, id`);
}

export function findFolder(db: CommonQueryMethods, realmId: number, id: number): Promise<FolderRow | null> {
  return db.maybeOne(sql.type(folderRow)`SELECT ${columns} FROM channel_folders WHERE realm_id = ${realmId} AND id = ${id}`);
}

/** Is the name taken by another folder of the organization (case-insensitively)? */
export function folderNameTaken(db: CommonQueryMethods, realmId: number, name: string, exceptId = -1): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM channel_folders WHERE realm_id = ${realmId} AND lower(name) = lower(${name}) AND id <> ${exceptId}`);
}

export function insertFolder(
  db: CommonQueryMethods,
  f: { realmId: number; name: string; description: string; renderedDescription: string; creatorId: number; nowMs: number },
): Promise<FolderRow> {
  return db.one(sql.type(folderRow)`
    INSERT INTO channel_folders (realm_id, name, description, rendered_description, creator_id, date_created, sort_order)
    VALUES (${f.realmId}, ${f.name}, ${f.description}, ${f.renderedDescription}, ${f.creatorId}, to_timestamp(${f.nowMs / 1000}),
            (SELECT coalesce(max(sort_order), -1) + 1 FROM channel_folders WHERE realm_id = ${f.realmId}))
    RETURNING ${columns}`);
}

export async function updateFolder(
  db: CommonQueryMethods,
  id: number,
  c: { name?: string | undefined; description?: string | undefined; renderedDescription?: string | undefined; isArchived?: boolean | undefined },
): Promise<void> {
  const sets = [
    c.name === undefined ? null : sql.fragment`name = ${c.name}`,
    c.description === undefined ? null : sql.fragment`description = ${c.description}`,
    c.renderedDescription === undefined ? null : sql.fragment`rendered_description = ${c.renderedDescription}`,
    c.isArchived === undefined ? null : sql.fragment`is_archived = ${c.isArchived}`,
  ].filter((f) => f !== null);
  if (sets.length === 0) return;
  await db.query(sql.unsafe`UPDATE channel_folders SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

/** Give the folders their position in `ids` (which lists every folder of the organization). */
export async function setFolderOrder(db: CommonQueryMethods, realmId: number, ids: readonly number[]): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE channel_folders f SET sort_order = o.ord - 1
    FROM unnest(${sql.array(ids, 'int4')}::int[]) WITH ORDINALITY AS o(id, ord)
    WHERE f.id = o.id AND f.realm_id = ${realmId}`);
}

/** Does any active channel sit in the folder? */
export function folderHasChannels(db: CommonQueryMethods, folderId: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM channels WHERE folder_id = ${folderId} AND NOT is_archived`);
}
