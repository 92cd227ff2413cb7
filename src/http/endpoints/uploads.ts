// Uploads: POST /user_uploads (multipart), the file at /user_uploads/<path_id> (a browser session
// or HTTP Basic), GET /api/v1/user_uploads/<path_id> (a short-lived URL), the temporary URL
// itself, GET /attachments and DELETE /attachments/{id}. A file is for its uploader and for
// whoever may read a message that references it (spectators: one in a web-public channel).
import { z } from 'zod';
import { attachmentObject } from '../../actors/conversations/attachments.js';
import type { RealmHandle } from '../../actors/realm/actor.js';
import { canReadFullHistory, spectatorCanRead, spectatorsAllowed } from '../../actors/realm/channel-view.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { errors } from '../../domain/errors.js';
import { contentDisposition, isPathId, newPathId, readTemporaryToken, servedContentType, temporaryToken } from '../../domain/uploads.js';
import { attachmentById, attachmentByPath, attachmentsOf, referencingMessages, spaceUsed, type AttachmentRecord } from '../../store/attachments.js';
import { FileStore } from '../../store/files.js';
import { publicEndpoint, RawResponse, userEndpoint, type RequestContext } from '../endpoint.js';
import { p } from '../params.js';

/** How long a URL from GET /api/v1/user_uploads/… works. */
export const TEMPORARY_URL_SECONDS = 60;
const MIB = 1024 * 1024;

const filesOf = (ctx: RequestContext) => new FileStore(ctx.app.config.uploads.dir);

export const uploadFile = userEndpoint(z.object({}), async (ctx) => {
  const files = ctx.files;
  if (files.length === 0) throw errors.badRequest('You must specify a file to upload');
  if (files.length > 1) throw errors.badRequest('You may only upload one file at a time');
  const file = files[0]!;
  const max = ctx.app.config.uploads.maxBytes;
  if (file.data.length > max) throw errors.uploadTooLarge(max >= MIB ? Math.floor(max / MIB) : Number((max / MIB).toFixed(3)));
  const pathId = newPathId(ctx.realm.id, file.filename);
  const store = filesOf(ctx);
  await store.save(pathId, file.data);
  try {
    await ctx.realm.conversations.askUser(ctx.user.id, 'attachment.add', {
      realmId: ctx.realm.id,
      ownerId: ctx.user.id,
      pathId,
      fileName: file.filename.split(/[\\/]/).pop() || 'uploaded-file',
      contentType: file.contentType,
      size: file.data.length,
    });
  } catch (e) {
    await store.remove(pathId);
    throw e;
  }
  const url = `/user_uploads/${pathId}`;
  return { uri: url, url, filename: pathId.split('/').pop()! };
});

/** May this viewer (null: a spectator) fetch this file? */
async function mayFetch(realm: RealmHandle, viewer: UserRecord | null, a: AttachmentRecord): Promise<boolean> {
  if (viewer && a.owner_id === viewer.id) return true;
  const state = realm.state;
  for (const m of await referencingMessages(realm.services.db, a.id, viewer?.id ?? 0)) {
    const c = m.channel_id !== null ? state.channels.get(m.channel_id) : undefined;
    if (viewer && (m.received || (c && canReadFullHistory(state, viewer, c)))) return true;
    if (!viewer && c && spectatorCanRead(state, c)) return true;
  }
  return false;
}

const pathParams = { realm_id: p.string(), bucket: p.string(), token: p.string(), filename: p.string() };
const pathIdOf = (q: { realm_id: string; bucket: string; token: string; filename: string }) => `${q.realm_id}/${q.bucket}/${q.token}/${q.filename}`;

/** The attachment at a path, if the viewer may have it; else "File not found" (existence hidden). */
async function fetchable(realm: RealmHandle, viewer: UserRecord | null, pathId: string): Promise<AttachmentRecord> {
  if (!isPathId(pathId) || !pathId.startsWith(`${realm.id}/`)) throw errors.fileNotFound();
  const a = await attachmentByPath(realm.services.db, realm.id, pathId);
  if (!a || !(await mayFetch(realm, viewer, a))) throw errors.fileNotFound();
  return a;
}

async function serve(ctx: RequestContext, a: AttachmentRecord): Promise<RawResponse> {
  const data = await filesOf(ctx).read(a.path_id);
  if (!data) throw errors.fileNotFound();
  const { type, inline } = servedContentType(a.content_type);
  return new RawResponse(
    200,
    {
      'Content-Type': type,
      'Content-Disposition': contentDisposition(inline, a.file_name),
      'Cache-Control': 'private, max-age=86400',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    },
    data,
  );
}

/** GET /user_uploads/<path_id>: the file, for a browser session or HTTP Basic (or spectators: web-public). */
export const getFile = publicEndpoint(z.object(pathParams), async (ctx, q) => {
  if (!ctx.user && !spectatorsAllowed(ctx.realm.state)) throw errors.notLoggedIn();
  return serve(ctx, await fetchable(ctx.realm, ctx.user, pathIdOf(q)));
});

/** GET /api/v1/user_uploads/<path_id>: a URL that works without credentials for a minute. */
export const getFileUrl = userEndpoint(z.object(pathParams), async (ctx, q) => {
  const a = await fetchable(ctx.realm, ctx.user, pathIdOf(q));
  const token = temporaryToken(ctx.app.secret, a.path_id, ctx.app.clock.now() + TEMPORARY_URL_SECONDS * 1000);
  return { url: `/user_uploads/temporary/${token}/${encodeURIComponent(q.filename)}` };
});

export const getTemporaryFile = publicEndpoint(
  z.object({ token: p.string(), filename: p.string() }),
  async (ctx, q) => {
    const pathId = readTemporaryToken(ctx.app.secret, q.token, ctx.app.clock.now());
    if (!pathId || !pathId.startsWith(`${ctx.realm.id}/`)) throw errors.fileNotFound();
    const a = await attachmentByPath(ctx.app.db, ctx.realm.id, pathId);
    if (!a) throw errors.fileNotFound();
    return serve(ctx, a);
  },
  'none',
);

export const listAttachments = userEndpoint(z.object({}), async (ctx) => {
  const [rows, used] = await Promise.all([attachmentsOf(ctx.app.db, ctx.user.id), spaceUsed(ctx.app.db, ctx.realm.id)]);
  return { attachments: rows.map(attachmentObject), upload_space_used: used };
});

export const deleteAttachment = userEndpoint(z.object({ attachment_id: p.id() }), async (ctx, q) => {
  const a = await attachmentById(ctx.app.db, q.attachment_id);
  if (!a || a.owner_id !== ctx.user.id) throw errors.invalidAttachment();
  await ctx.realm.conversations.askUser(ctx.user.id, 'attachment.remove', { ownerId: ctx.user.id, attachment: a });
  await filesOf(ctx).remove(a.path_id);
  return {};
});
