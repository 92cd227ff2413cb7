// A user's own data: alert words, muted users, status (own, or another's by an administrator),
// saved snippets and navigation views.
import { z } from 'zod';
import { accessUser } from '../../actors/realm/user-access.js';
import { formatSnippet } from '../../actors/realm/personal.js';
import { errors } from '../../domain/errors.js';
import { formatStatus, MAX_ALERT_WORD_LENGTH, MAX_SNIPPET_TITLE_LENGTH, MAX_STATUS_TEXT_LENGTH } from '../../domain/personal.js';
import { isAdmin } from '../../domain/roles.js';
import { MAX_MESSAGE_LENGTH } from '../register/state.js';
import { listAlertWords } from '../../store/alert-words.js';
import { listViews } from '../../store/navigation-views.js';
import { listSnippets } from '../../store/saved-snippets.js';
import { getStatus } from '../../store/user-status.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';

const alertWordsParam = p.json(z.array(z.string().max(MAX_ALERT_WORD_LENGTH)));

export const getAlertWords = userEndpoint(z.object({}), async (ctx) => ({
  alert_words: await listAlertWords(ctx.app.db, ctx.user.id),
}));

export const addAlertWords = userEndpoint(z.object({ alert_words: alertWordsParam }), async (ctx, params) => ({
  alert_words: await ctx.realm.ask('alertWords.add', { userId: ctx.user.id, words: params.alert_words }),
}));

export const removeAlertWords = userEndpoint(z.object({ alert_words: alertWordsParam }), async (ctx, params) => ({
  alert_words: await ctx.realm.ask('alertWords.remove', { userId: ctx.user.id, words: params.alert_words }),
}));

/**
 * Mute a user: recorded, then every unread message from them marked read (as the messages they
 * send from now on arrive), which clears their notifications on the muter's devices.
 */
export const muteUser = userEndpoint(z.object({ muted_user_id: p.int() }), async (ctx, params) => {
  await ctx.realm.ask('user.mute', { userId: ctx.user.id, mutedUserId: params.muted_user_id });
  await ctx.realm.conversations.askUser(ctx.user.id, 'flags.markRead', { userId: ctx.user.id, senderId: params.muted_user_id });
  return {};
});

export const unmuteUser = userEndpoint(z.object({ muted_user_id: p.int() }), async (ctx, params) => {
  await ctx.realm.ask('user.unmute', { userId: ctx.user.id, mutedUserId: params.muted_user_id });
  return {};
});

const statusParams = {
  status_text: p.string({ max: MAX_STATUS_TEXT_LENGTH }).optional(),
  emoji_name: p.string({ trim: true }).optional(),
  emoji_code: p.string({ trim: true }).optional(),
  reaction_type: p.string().optional(),
};

async function setStatus(ctx: UserContext, userId: number, params: z.infer<z.ZodObject<typeof statusParams>> & { away?: boolean | undefined }) {
  await ctx.realm.ask('status.set', {
    userId,
    statusText: params.status_text,
    away: params.away,
    emojiName: params.emoji_name,
    emojiCode: params.emoji_code,
    reactionType: params.reaction_type,
  });
  return {};
}

export const setOwnStatus = userEndpoint(z.object({ ...statusParams, away: p.bool().optional() }), (ctx, params) =>
  setStatus(ctx, ctx.user.id, params),
);

export const setUserStatus = userEndpoint(z.object({ user_id: p.int(), ...statusParams }), async (ctx, params) => {
  if (!isAdmin(ctx.user.role)) throw errors.insufficientPermission();
  const target = accessUser(ctx.realm.state, ctx.user, ctx.realm.state.user(params.user_id), { allowDeactivated: false });
  return setStatus(ctx, target.id, params);
});

export const getUserStatus = userEndpoint(z.object({ user_id: p.int() }), async (ctx, params) => {
  const target = accessUser(ctx.realm.state, ctx.user, ctx.realm.state.user(params.user_id));
  return { status: formatStatus(await getStatus(ctx.app.db, target.id), target.settings.presence_enabled) };
});

export const getSnippets = userEndpoint(z.object({}), async (ctx) => ({
  saved_snippets: (await listSnippets(ctx.app.db, ctx.user.id)).map(formatSnippet),
}));

export const createSnippet = userEndpoint(
  z.object({ title: p.string({ max: MAX_SNIPPET_TITLE_LENGTH }), content: p.string({ max: MAX_MESSAGE_LENGTH }) }),
  async (ctx, params) => ({
    saved_snippet_id: await ctx.realm.ask('snippet.add', { userId: ctx.user.id, title: params.title, content: params.content }),
  }),
);

export const editSnippet = userEndpoint(
  z.object({
    saved_snippet_id: p.id(),
    title: p.string({ max: MAX_SNIPPET_TITLE_LENGTH }).optional(),
    content: p.string({ max: MAX_MESSAGE_LENGTH }).optional(),
  }),
  async (ctx, params) => {
    await ctx.realm.ask('snippet.edit', { userId: ctx.user.id, id: params.saved_snippet_id, title: params.title, content: params.content });
    return {};
  },
);

export const deleteSnippet = userEndpoint(z.object({ saved_snippet_id: p.id() }), async (ctx, params) => {
  await ctx.realm.ask('snippet.delete', { userId: ctx.user.id, id: params.saved_snippet_id });
  return {};
});

/** A name, or JSON null (the reference encodes it as JSON). */
const viewName = p.string().transform((s) => (s === 'null' ? null : s));

export const getViews = userEndpoint(z.object({}), async (ctx) => ({
  navigation_views: await listViews(ctx.app.db, ctx.user.id),
}));

export const addView = userEndpoint(
  z.object({ fragment: p.string({ max: 256 }), is_pinned: p.bool(), name: viewName.optional() }),
  async (ctx, params) => {
    await ctx.realm.ask('view.add', { userId: ctx.user.id, fragment: params.fragment, isPinned: params.is_pinned, name: params.name ?? null });
    return {};
  },
);

export const editView = userEndpoint(
  z.object({ fragment: p.string(), is_pinned: p.bool().optional(), name: viewName.optional() }),
  async (ctx, params) => {
    await ctx.realm.ask('view.edit', { userId: ctx.user.id, fragment: params.fragment, isPinned: params.is_pinned, name: params.name });
    return {};
  },
);

export const removeView = userEndpoint(z.object({ fragment: p.string() }), async (ctx, params) => {
  await ctx.realm.ask('view.remove', { userId: ctx.user.id, fragment: params.fragment });
  return {};
});
