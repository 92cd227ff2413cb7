// Realm commands for custom emoji and linkifiers (the organization's content that the Markdown
// renderer reads from the cached state) and code playgrounds (read from Postgres). Run inside
// the realm actor; the cache is updated before the events are released.
import type { CommonQueryMethods } from 'slonik';
import { errors } from '../../domain/errors.js';
import { realmEmojiEvent, realmLinkifiersEvent, realmPlaygroundsEvent } from '../../domain/events/realm-content.js';
import { emojiByName } from '../../domain/emoji.js';
import { checkLinkifier } from '../../domain/linkifiers.js';
import { checkPlayground } from '../../domain/playgrounds.js';
import { checkEmojiName, formatRealmEmoji, realmEmojiDict, type RealmEmojiRecord } from '../../domain/realm-emoji.js';
import { isAdmin } from '../../domain/roles.js';
import * as emojiStore from '../../store/realm-emoji.js';
import * as linkifierStore from '../../store/linkifiers.js';
import * as playgroundStore from '../../store/playgrounds.js';
import type { Emit } from '../realm-events.js';
import type { RealmContext } from './actor.js';
import type { LinkifierRecord, RealmState } from './state.js';

const all = { userIds: null };

function emojiEvent(state: RealmState, op: 'add' | 'edit', e: RealmEmojiRecord) {
  const next = new Map(state.realmEmoji).set(e.id, e);
  const dict = realmEmojiDict(state.id, next.values());
  return realmEmojiEvent.build({ op, emoji: formatRealmEmoji(state.id, e) as { id: string }, realm_emoji: dict as Record<string, { id: string }> }, all);
}

export interface AddEmojiInput {
  readonly actorId: number;
  readonly name: string;
  /** The image, already stored under this name by the caller. */
  readonly fileName: string;
  readonly isAnimated: boolean;
}

async function addEmoji(ctx: RealmContext, input: AddEmojiInput): Promise<RealmEmojiRecord> {
  const { state } = ctx;
  const actor = state.user(input.actorId);
  if (!actor) throw errors.noSuchUser();
  checkEmojiName(input.name);
  if (!state.hasRealmPermission(actor.id, 'can_add_custom_emoji_group')) throw errors.insufficientPermission();
  if (state.activeEmojiNamed(input.name)) throw errors.badRequest('A custom emoji with this name already exists.');
  if (emojiByName(input.name) && !isAdmin(actor.role)) throw errors.badRequest('Only administrators can override default emoji.');
  return ctx.write(
    async (tx, emit) => {
      const row = await emojiStore.insertRealmEmoji(tx, state.id, input.name, actor.id, input.isAnimated);
      await emojiStore.setEmojiFileName(tx, row.id, input.fileName);
      const record = { ...row, file_name: input.fileName };
      emit(emojiEvent(state, 'add', record));
      return record;
    },
    (record) => state.realmEmoji.set(record.id, record),
  );
}

/** Administrators may deactivate any custom emoji; other users only those they added. */
async function deactivateEmoji(ctx: RealmContext, input: { readonly actorId: number; readonly name: string }): Promise<void> {
  const { state } = ctx;
  const actor = state.user(input.actorId);
  if (!actor) throw errors.noSuchUser();
  const emoji = state.activeEmojiNamed(input.name);
  if (!emoji) throw errors.badRequest(`Emoji '${input.name}' does not exist`);
  if (!isAdmin(actor.role) && emoji.author_id !== actor.id) throw errors.badRequest('Must be an organization administrator or emoji author');
  const record = { ...emoji, deactivated: true };
  await ctx.write(
    async (tx, emit) => {
      await emojiStore.deactivateRealmEmoji(tx, emoji.id);
      emit(emojiEvent(state, 'edit', record));
    },
    () => state.realmEmoji.set(record.id, record),
  );
}

const linkifierNotFound = () => errors.badRequest('Linkifier not found.');

function checkNewLinkifier(state: RealmState, pattern: string, urlTemplate: string, selfId: number | null): void {
  const problem = checkLinkifier(pattern, urlTemplate);
  if (problem) throw errors.badRequest(problem);
  if (state.linkifiers.some((l) => l.pattern === pattern && l.id !== selfId)) throw errors.badRequest('Linkifier with this pattern already exists.');
}

/** Write, then emit the whole list and cache it (re-read in the same transaction). */
async function writeLinkifiers<T>(ctx: RealmContext, work: (tx: Parameters<Parameters<RealmContext['write']>[0]>[0]) => Promise<T>): Promise<T> {
  const { state } = ctx;
  const out = await ctx.write(
    async (tx, emit) => {
      const result = await work(tx);
      const list: LinkifierRecord[] = (await linkifierStore.listLinkifiers(tx, state.id)).map((l) => ({
        id: l.id,
        pattern: l.pattern,
        url_template: l.url_template,
      }));
      emit(realmLinkifiersEvent.build({ realm_linkifiers: list.map((l) => ({ ...l })) }, all));
      return { result, list };
    },
    ({ list }) => {
      state.linkifiers = list;
    },
  );
  return out.result;
}

async function addLinkifier(ctx: RealmContext, input: { readonly pattern: string; readonly urlTemplate: string }): Promise<number> {
  checkNewLinkifier(ctx.state, input.pattern, input.urlTemplate, null);
  return writeLinkifiers(ctx, async (tx) => (await linkifierStore.insertLinkifier(tx, ctx.state.id, input.pattern, input.urlTemplate)).id);
}

async function updateLinkifier(ctx: RealmContext, input: { readonly id: number; readonly pattern: string; readonly urlTemplate: string }): Promise<void> {
  if (!ctx.state.linkifiers.some((l) => l.id === input.id)) throw linkifierNotFound();
  checkNewLinkifier(ctx.state, input.pattern, input.urlTemplate, input.id);
  await writeLinkifiers(ctx, (tx) => linkifierStore.updateLinkifier(tx, input.id, input.pattern, input.urlTemplate));
}

async function removeLinkifier(ctx: RealmContext, input: { readonly id: number }): Promise<void> {
  if (!ctx.state.linkifiers.some((l) => l.id === input.id)) throw linkifierNotFound();
  await writeLinkifiers(ctx, (tx) => linkifierStore.deleteLinkifier(tx, input.id));
}

async function reorderLinkifiers(ctx: RealmContext, input: { readonly ids: readonly number[] }): Promise<void> {
  if (new Set(input.ids).size !== input.ids.length) throw errors.badRequest('The ordered list must not contain duplicated linkifiers');
  const existing = ctx.state.linkifiers.map((l) => l.id).sort((a, b) => a - b);
  if ([...input.ids].sort((a, b) => a - b).join() !== existing.join()) {
    throw errors.badRequest('The ordered list must enumerate all existing linkifiers exactly once');
  }
  await writeLinkifiers(ctx, (tx) => linkifierStore.reorderLinkifiers(tx, input.ids));
}

/** Every playground of the organization, to everyone, after each change. */
async function emitPlaygrounds(tx: CommonQueryMethods, ctx: RealmContext, emit: Emit): Promise<void> {
  const list = (await playgroundStore.listPlaygrounds(tx, ctx.state.id)).map((r) => ({ ...r }));
  emit(realmPlaygroundsEvent.build({ realm_playgrounds: list }, all));
}

async function addPlayground(ctx: RealmContext, input: { readonly name: string; readonly language: string; readonly urlTemplate: string }): Promise<number> {
  const problem = checkPlayground(input.name, input.language, input.urlTemplate);
  if (problem) throw errors.badRequest(problem);
  return ctx.write(async (tx, emit) => {
    const row = await playgroundStore.insertPlayground(tx, ctx.state.id, input);
    if (!row) throw errors.badRequest('Realm playground with this Realm, Pygments language and Name already exists.');
    await emitPlaygrounds(tx, ctx, emit);
    return row.id;
  });
}

async function removePlayground(ctx: RealmContext, input: { readonly id: number }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    if (!(await playgroundStore.deletePlayground(tx, ctx.state.id, input.id))) throw errors.badRequest('Invalid playground');
    await emitPlaygrounds(tx, ctx, emit);
  });
}

export const realmContentCommands = {
  'emoji.add': addEmoji,
  'emoji.deactivate': deactivateEmoji,
  'linkifier.add': addLinkifier,
  'linkifier.update': updateLinkifier,
  'linkifier.remove': removeLinkifier,
  'linkifier.reorder': reorderLinkifiers,
  'playground.add': addPlayground,
  'playground.remove': removePlayground,
};
