// Avatars: uploading and removing one's own (POST/DELETE /users/me/avatar), serving uploaded
// files (GET /user_avatars/{realm_id}/{file}) and GET /avatar/{user_id}, which redirects to a
// user's current avatar URL (served at the site root like the reference server).
import { z } from 'zod';
import { spectatorsAllowed } from '../../actors/realm/channel-view.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { userByRef } from '../../actors/realm/user-access.js';
import { avatarUrl, externalAvatarUrl } from '../../domain/avatar.js';
import { errors } from '../../domain/errors.js';
import { sniffImageType, type ImageType } from '../../domain/images.js';
import { isAdmin } from '../../domain/roles.js';
import { blobStore } from '../../store/blobs.js';
import type { UploadedFile } from '../body.js';
import { publicEndpoint, RawResponse, userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';

export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** Check an uploaded picture: an image within the size limit. Returns its content type. */
export function checkImageUpload(file: UploadedFile, limitMib: number): ImageType {
  if (file.data.length > limitMib * 1024 * 1024) throw errors.fileTooLarge(limitMib);
  const type = sniffImageType(file.data);
  if (!type) throw errors.notAnImage();
  return type;
}

/** An uploaded image as a response, typed by its content. */
export function imageResponse(data: Buffer, cacheControl: string): RawResponse {
  return new RawResponse(
    200,
    { 'Content-Type': sniffImageType(data) ?? 'application/octet-stream', 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff' },
    data,
  );
}

const avatarKey = (realmId: number, userId: number) => `${realmId}/${userId}`;

/** Store an uploaded avatar for the account and make it the account's avatar. */
export async function storeUploadedAvatar(ctx: UserContext, userId: number, file: UploadedFile): Promise<UserRecord> {
  checkImageUpload(file, MAX_AVATAR_FILE_SIZE_MIB);
  await blobStore(ctx.app.config.dataDir, 'avatars').put(avatarKey(ctx.realm.id, userId), file.data);
  return ctx.realm.ask('user.setAvatar', { userId, source: 'U' });
}

function checkAvatarChangesAllowed(ctx: UserContext): void {
  if (ctx.realm.state.realm.settings.avatar_changes_disabled && !isAdmin(ctx.user.role)) throw errors.avatarChangesDisabled();
}

export const setOwnAvatar = userEndpoint(z.object({}), async (ctx) => {
  checkAvatarChangesAllowed(ctx);
  if (ctx.files.length !== 1) throw errors.exactlyOneFile('avatar');
  const u = await storeUploadedAvatar(ctx, ctx.user.id, ctx.files[0]!);
  return { avatar_url: avatarUrl(u, false) };
});

/** Remove the account's uploaded image (after its avatar_source stopped naming it). */
export async function removeUploadedAvatar(ctx: UserContext, userId: number): Promise<void> {
  await blobStore(ctx.app.config.dataDir, 'avatars').remove(avatarKey(ctx.realm.id, userId));
}

export const deleteOwnAvatar = userEndpoint(z.object({}), async (ctx) => {
  checkAvatarChangesAllowed(ctx);
  const u = ctx.user.avatar_source === 'U' ? await ctx.realm.ask('user.setAvatar', { userId: ctx.user.id, source: 'G' }) : ctx.user;
  await removeUploadedAvatar(ctx, ctx.user.id);
  return { avatar_url: avatarUrl(u, false) };
});

/** Uploaded avatars are public, like the reference server's: their URLs carry no secret. */
export const serveUploadedAvatar = publicEndpoint(
  z.object({ realm_id: p.int(), file_name: p.string() }),
  async (ctx, params) => {
    const m = /^(\d{1,10})(-medium)?\.png$/.exec(params.file_name);
    if (!m || params.realm_id !== ctx.realm.id) throw errors.fileNotFound();
    const data = await blobStore(ctx.app.config.dataDir, 'avatars').get(avatarKey(ctx.realm.id, Number(m[1])));
    if (!data) throw errors.fileNotFound();
    return imageResponse(data, 'public, max-age=86400');
  },
  'none',
);

function avatarRedirect(medium: boolean) {
  return publicEndpoint(z.object({ user_id: p.string() }), async (ctx, params) => {
    const state = ctx.realm.state;
    const viewer = ctx.user;
    if (!viewer && !spectatorsAllowed(state)) throw errors.notLoggedIn();
    const target = userByRef(state, viewer, params.user_id);
    if (!target) throw errors.noSuchUser();
    // Users the viewer may not access get a neutral picture that says nothing about them.
    const url =
      !state.canAccessUser(viewer?.id ?? null, target.id)
        ? externalAvatarUrl(`unknown-user@${state.realm.host}`, 1, medium)
        : avatarUrl(target, false, medium)!;
    const location = url.startsWith('/') ? state.realm.url + url : url;
    return new RawResponse(302, { Location: location, 'Cache-Control': 'private, max-age=300' }, '');
  });
}

export const redirectToAvatar = avatarRedirect(false);
export const redirectToMediumAvatar = avatarRedirect(true);
