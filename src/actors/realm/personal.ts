// Realm commands for a user's own data: alert words, muted users, status, saved snippets and
// navigation views. They go through the realm actor because it emits every event of the
// organization.
import { errors } from '../../domain/errors.js';
import { alertWordsEvent, mutedUsersEvent, navigationViewEvent, savedSnippetsEvent, userStatusEvent } from '../../domain/events/personal.js';
import { BUILT_IN_VIEWS, MAX_SNIPPET_TITLE_LENGTH } from '../../domain/personal.js';
import * as alertWords from '../../store/alert-words.js';
import * as mutes from '../../store/muted-users.js';
import * as views from '../../store/navigation-views.js';
import * as snippets from '../../store/saved-snippets.js';
import * as statuses from '../../store/user-status.js';
import { updateUser } from '../../store/users.js';
import type { RealmContext } from './actor.js';
import { resolveEmoji } from './emoji-request.js';
import { settingChange } from './user-profile.js';

const toUser = (userId: number) => ({ userIds: [userId] });

async function addAlertWords(ctx: RealmContext, input: { readonly userId: number; readonly words: readonly string[] }): Promise<string[]> {
  return ctx.write(async (tx, emit) => {
    const current = await alertWords.listAlertWords(tx, input.userId);
    const known = new Set(current.map((w) => w.toLowerCase()));
    const fresh = new Map<string, string>();
    for (const w of input.words.map((x) => x.trim()).filter((x) => x !== '')) {
      if (!known.has(w.toLowerCase()) && !fresh.has(w.toLowerCase())) fresh.set(w.toLowerCase(), w);
    }
    if (fresh.size === 0) return current;
    await alertWords.addAlertWords(tx, input.userId, [...fresh.values()]);
    const next = await alertWords.listAlertWords(tx, input.userId);
    emit(alertWordsEvent.build({ alert_words: next }, toUser(input.userId)));
    return next;
  });
}

async function removeAlertWords(ctx: RealmContext, input: { readonly userId: number; readonly words: readonly string[] }): Promise<string[]> {
  return ctx.write(async (tx, emit) => {
    const current = await alertWords.listAlertWords(tx, input.userId);
    const gone = new Set(input.words.map((w) => w.trim().toLowerCase()));
    if (!current.some((w) => gone.has(w.toLowerCase()))) return current;
    await alertWords.removeAlertWords(tx, input.userId, [...gone]);
    const next = await alertWords.listAlertWords(tx, input.userId);
    emit(alertWordsEvent.build({ alert_words: next }, toUser(input.userId)));
    return next;
  });
}

interface MuteInput {
  readonly userId: number;
  readonly mutedUserId: number;
}

/** Whom a user may mute or unmute: a human (active or not) they may see; else "No such user". */
function muteTarget(ctx: RealmContext, input: MuteInput): void {
  const target = ctx.state.user(input.mutedUserId);
  if (!target || target.is_bot || !ctx.state.canAccessUser(input.userId, target.id)) throw errors.noSuchUser();
}

/** Mute a user: the muter's clients get the whole list (muted_users). Their unread messages are the caller's to mark read. */
async function muteUser(ctx: RealmContext, input: MuteInput): Promise<void> {
  const { state } = ctx;
  if (input.userId === input.mutedUserId) throw errors.badRequest('Cannot mute self');
  muteTarget(ctx, input);
  if (state.mutes.has(input.userId, input.mutedUserId)) throw errors.badRequest('User already muted');
  const nowMs = ctx.services.clock.now();
  await ctx.write(
    async (tx, emit) => {
      await mutes.insertMute(tx, input.userId, input.mutedUserId, nowMs);
      const list = [...state.mutes.of(input.userId), { id: input.mutedUserId, timestamp: Math.floor(nowMs / 1000) }];
      emit(mutedUsersEvent.build({ muted_users: list }, toUser(input.userId)));
    },
    () => state.mutes.add(input.userId, input.mutedUserId, nowMs),
  );
}

async function unmuteUser(ctx: RealmContext, input: MuteInput): Promise<void> {
  const { state } = ctx;
  muteTarget(ctx, input);
  if (!state.mutes.has(input.userId, input.mutedUserId)) throw errors.badRequest('User is not muted');
  await ctx.write(
    async (tx, emit) => {
      await mutes.deleteMute(tx, input.userId, input.mutedUserId);
      const list = state.mutes.of(input.userId).filter((m) => m.id !== input.mutedUserId);
      emit(mutedUsersEvent.build({ muted_users: list }, toUser(input.userId)));
    },
    () => state.mutes.remove(input.userId, input.mutedUserId),
  );
}

export interface SetStatusInput {
  readonly userId: number;
  readonly statusText?: string | undefined;
  /** Legacy: "away" is the inverse of the presence_enabled setting. */
  readonly away?: boolean | undefined;
  readonly emojiName?: string | undefined;
  readonly emojiCode?: string | undefined;
  readonly reactionType?: string | undefined;
}

/** Change only the parts of the status given; an empty emoji name clears the emoji. */
async function setStatus(ctx: RealmContext, input: SetStatusInput): Promise<void> {
  const { state } = ctx;
  const user = state.user(input.userId);
  if (!user) throw errors.noSuchUser();
  if (input.statusText === undefined && input.away === undefined && input.emojiName === undefined) {
    if (input.emojiCode !== undefined || input.reactionType !== undefined) {
      throw errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    }
    throw errors.badRequest('Client did not pass any new values.');
  }
  if (input.emojiName === undefined && (input.emojiCode !== undefined || input.reactionType !== undefined)) {
    throw errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  const emoji =
    input.emojiName === undefined
      ? undefined
      : input.emojiName === ''
        ? { emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' as const }
        : resolveEmoji(state, input.emojiName, input.emojiCode, input.reactionType);
  const presence = input.away === undefined ? null : settingChange(state, user, 'presence_enabled', !input.away);
  const fields = { ...(input.statusText === undefined ? {} : { status_text: input.statusText.trim() }), ...emoji };
  if (Object.keys(fields).length === 0 && !presence) return;
  await ctx.write(
    async (tx, emit) => {
      if (Object.keys(fields).length > 0) {
        const current = (await statuses.getStatus(tx, user.id)) ?? {
          user_id: user.id,
          status_text: '',
          emoji_name: '',
          emoji_code: '',
          reaction_type: 'unicode_emoji',
        };
        await statuses.putStatus(tx, { ...current, ...fields }, ctx.services.clock.now());
        emit(userStatusEvent.build({ user_id: user.id, ...fields }, { userIds: null }));
      }
      // "away" is the presence_enabled setting; its change carries its own events.
      if (presence) {
        await updateUser(tx, user.id, presence.patch);
        for (const e of presence.events) emit(e);
      }
    },
    () => {
      if (presence) state.putUser(presence.next);
    },
  );
}

async function addSnippet(
  ctx: RealmContext,
  input: { readonly userId: number; readonly title: string; readonly content: string },
): Promise<number> {
  const title = checkSnippetTitle(input.title);
  if (input.content.trim() === '') throw errors.badRequest('Content cannot be empty.');
  return ctx.write(async (tx, emit) => {
    const row = await snippets.insertSnippet(tx, input.userId, title, input.content, ctx.services.clock.now());
    emit(savedSnippetsEvent.build({ op: 'add', saved_snippet: formatSnippet(row) }, toUser(input.userId)));
    return row.id;
  });
}

function checkSnippetTitle(title: string): string {
  const t = title.trim();
  if (t === '') throw errors.badRequest('Title cannot be empty.');
  if ([...t].length > MAX_SNIPPET_TITLE_LENGTH) throw errors.tooLong('title', MAX_SNIPPET_TITLE_LENGTH);
  return t;
}

export const formatSnippet = (r: snippets.SnippetRow) => ({
  id: r.id,
  title: r.title,
  content: r.content,
  date_created: Math.floor(r.date_created / 1000),
});

const noSnippet = () => errors.badRequest('Saved snippet does not exist.');

async function editSnippet(
  ctx: RealmContext,
  input: { readonly userId: number; readonly id: number; readonly title?: string | undefined; readonly content?: string | undefined },
): Promise<void> {
  if (input.title === undefined && input.content === undefined) throw errors.badRequest('At least one of title or content must be provided.');
  const title = input.title === undefined ? undefined : checkSnippetTitle(input.title);
  if (input.content !== undefined && input.content.trim() === '') throw errors.badRequest('Content cannot be empty.');
  await ctx.write(async (tx, emit) => {
    const current = await snippets.getSnippet(tx, input.userId, input.id);
    if (!current) throw noSnippet();
    const row = await snippets.updateSnippet(tx, current.id, title ?? current.title, input.content ?? current.content);
    emit(savedSnippetsEvent.build({ op: 'update', saved_snippet: formatSnippet(row) }, toUser(input.userId)));
  });
}

async function deleteSnippet(ctx: RealmContext, input: { readonly userId: number; readonly id: number }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    if (!(await snippets.getSnippet(tx, input.userId, input.id))) throw noSnippet();
    await snippets.deleteSnippet(tx, input.id);
    emit(savedSnippetsEvent.build({ op: 'remove', saved_snippet_id: input.id }, toUser(input.userId)));
  });
}

/** Built-in views are configured without a name; custom ones need a unique name. */
function checkViewName(fragment: string, name: string | null, others: readonly views.ViewRow[]): void {
  if (BUILT_IN_VIEWS.has(fragment)) {
    if (name !== null) throw errors.badRequest('Built-in views cannot have a custom name');
    return;
  }
  if (name === null || name.trim() === '') throw errors.badRequest('Custom views must have a valid name');
  if (others.some((v) => v.name !== null && v.name.toLowerCase() === name.toLowerCase())) {
    throw errors.badRequest('Navigation view with this name already exists.');
  }
}

async function addView(
  ctx: RealmContext,
  input: { readonly userId: number; readonly fragment: string; readonly isPinned: boolean; readonly name: string | null },
): Promise<void> {
  const fragment = input.fragment.trim();
  if (fragment === '') throw errors.badRequest('fragment cannot be blank');
  await ctx.write(async (tx, emit) => {
    const existing = await views.listViews(tx, input.userId);
    if (existing.some((v) => v.fragment === fragment)) throw errors.badRequest('Navigation view already exists.');
    const name = input.name === null ? null : input.name.trim();
    checkViewName(fragment, name, existing);
    const view = { fragment, is_pinned: input.isPinned, name };
    await views.insertView(tx, input.userId, view);
    emit(navigationViewEvent.build({ op: 'add', navigation_view: view }, toUser(input.userId)));
  });
}

async function editView(
  ctx: RealmContext,
  input: { readonly userId: number; readonly fragment: string; readonly isPinned?: boolean | undefined; readonly name?: string | null | undefined },
): Promise<void> {
  if (input.isPinned === undefined && input.name === undefined) throw errors.badRequest('At least one of is_pinned or name must be provided.');
  await ctx.write(async (tx, emit) => {
    const existing = await views.listViews(tx, input.userId);
    const current = existing.find((v) => v.fragment === input.fragment);
    if (!current) throw errors.navigationViewNotFound();
    const name = input.name === undefined ? current.name : input.name === null ? null : input.name.trim();
    if (input.name !== undefined) checkViewName(current.fragment, name, existing.filter((v) => v !== current));
    await views.updateView(tx, input.userId, { fragment: current.fragment, is_pinned: input.isPinned ?? current.is_pinned, name });
    const data = {
      ...(input.isPinned === undefined ? {} : { is_pinned: input.isPinned }),
      ...(input.name === undefined ? {} : { name }),
    };
    emit(navigationViewEvent.build({ op: 'update', fragment: current.fragment, data }, toUser(input.userId)));
  });
}

async function removeView(ctx: RealmContext, input: { readonly userId: number; readonly fragment: string }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    if (!(await views.listViews(tx, input.userId)).some((v) => v.fragment === input.fragment)) {
      throw errors.badRequest('Navigation view does not exist.');
    }
    await views.deleteView(tx, input.userId, input.fragment);
    emit(navigationViewEvent.build({ op: 'remove', fragment: input.fragment }, toUser(input.userId)));
  });
}

export const personalCommands = {
  'alertWords.add': addAlertWords,
  'alertWords.remove': removeAlertWords,
  'user.mute': muteUser,
  'user.unmute': unmuteUser,
  'status.set': setStatus,
  'snippet.add': addSnippet,
  'snippet.edit': editSnippet,
  'snippet.delete': deleteSnippet,
  'view.add': addView,
  'view.edit': editView,
  'view.remove': removeView,
};
