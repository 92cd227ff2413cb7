// Custom emoji (GET /realm/emoji, POST/DELETE /realm/emoji/{name}, image files) and linkifiers
// (GET /realm/linkifiers, POST /realm/filters, PATCH/DELETE /realm/filters/{id}, reorder).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { errors, isApiError } from '../../domain/errors.js';
import { IMAGE_EXTENSIONS, isAnimated } from '../../domain/images.js';
import { MAX_EMOJI_FILE_SIZE_MIB, realmEmojiDict } from '../../domain/realm-emoji.js';
import { blobStore } from '../../store/blobs.js';
import { publicEndpoint, userEndpoint } from '../endpoint.js';
import { requireAdmin } from '../guards.js';
import { p } from '../params.js';
import { checkImageUpload, imageResponse } from './avatars.js';

export const getRealmEmoji = userEndpoint(z.object({}), async (ctx) => {
  const state = ctx.realm.state;
  return { emoji: realmEmojiDict(state.id, state.realmEmoji.values()) };
});

const emojiKey = (realmId: number, fileName: string) => `${realmId}/${fileName}`;

export const addRealmEmoji = userEndpoint(z.object({ emoji_name: p.string({ trim: true }) }), async (ctx, params) => {
  if (ctx.files.length !== 1) throw errors.exactlyOneFile('file');
  const file = ctx.files[0]!;
  const image = checkImageUpload(file, MAX_EMOJI_FILE_SIZE_MIB);
  const fileName = `${randomUUID()}.${IMAGE_EXTENSIONS[image]}`;
  const blobs = blobStore(ctx.app.config.dataDir, 'emoji');
  // The image is in place before any client learns the emoji's URL.
  await blobs.put(emojiKey(ctx.realm.id, fileName), file.data);
  try {
    await ctx.realm.ask('emoji.add', { actorId: ctx.user.id, name: params.emoji_name, fileName, isAnimated: isAnimated(file.data, image) });
  } catch (e) {
    if (isApiError(e)) await blobs.remove(emojiKey(ctx.realm.id, fileName));
    throw e;
  }
  return {};
});

export const deactivateRealmEmoji = userEndpoint(z.object({ emoji_name: p.string() }), async (ctx, params) => {
  await ctx.realm.ask('emoji.deactivate', { actorId: ctx.user.id, name: params.emoji_name });
  return {};
});

/** Emoji images are public, like the reference server's: their URLs carry no secret. */
export const serveRealmEmoji = publicEndpoint(
  z.object({ realm_id: p.int(), file_name: p.string() }),
  async (ctx, params) => {
    if (params.realm_id !== ctx.realm.id || !/^[0-9a-f-]{36}\.(png|jpg|gif|webp)$/.test(params.file_name)) throw errors.fileNotFound();
    const data = await blobStore(ctx.app.config.dataDir, 'emoji').get(emojiKey(ctx.realm.id, params.file_name));
    if (!data) throw errors.fileNotFound();
    // Each upload gets a new file name, so the image under a name never changes.
    return imageResponse(data, 'public, max-age=31536000, immutable');
  },
  'none',
);

export const getLinkifiers = userEndpoint(z.object({}), async (ctx) => ({
  linkifiers: ctx.realm.state.linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.url_template })),
}));

const linkifierParams = { pattern: p.string({ trim: true }), url_template: p.string({ trim: true }) };

export const addLinkifier = userEndpoint(z.object(linkifierParams), async (ctx, params) => {
  requireAdmin(ctx.user);
  return { id: await ctx.realm.ask('linkifier.add', { pattern: params.pattern, urlTemplate: params.url_template }) };
});

export const updateLinkifier = userEndpoint(z.object({ filter_id: p.int(), ...linkifierParams }), async (ctx, params) => {
  requireAdmin(ctx.user);
  await ctx.realm.ask('linkifier.update', { id: params.filter_id, pattern: params.pattern, urlTemplate: params.url_template });
  return {};
});

export const removeLinkifier = userEndpoint(z.object({ filter_id: p.int() }), async (ctx, params) => {
  requireAdmin(ctx.user);
  await ctx.realm.ask('linkifier.remove', { id: params.filter_id });
  return {};
});

export const reorderLinkifiers = userEndpoint(z.object({ ordered_linkifier_ids: p.intList() }), async (ctx, params) => {
  requireAdmin(ctx.user);
  await ctx.realm.ask('linkifier.reorder', { ids: params.ordered_linkifier_ids });
  return {};
});

export const addPlayground = userEndpoint(
  z.object({ name: p.string({ trim: true }), pygments_language: p.string({ trim: true }), url_template: p.string({ trim: true }) }),
  async (ctx, params) => {
    requireAdmin(ctx.user);
    return { id: await ctx.realm.ask('playground.add', { name: params.name, language: params.pygments_language, urlTemplate: params.url_template }) };
  },
);

export const removePlayground = userEndpoint(z.object({ playground_id: p.id() }), async (ctx, params) => {
  requireAdmin(ctx.user);
  await ctx.realm.ask('playground.remove', { id: params.playground_id });
  return {};
});
