// Emoji reactions: POST and DELETE /messages/{id}/reactions (endpoint 15).
import { sql } from 'slonik';
import { z } from 'zod';
import { loadRenderData } from '../../actors/realm/markdown-context.js';
import { emojiByCode, emojiByName } from '../../domain/emoji.js';
import { errors } from '../../domain/errors.js';
import { conversationKeyOf } from '../../actors/conversations/conversations.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';
import { accessibleMessage } from '../views/message-fetch.js';

type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji';
const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'service_extra_emoji'] as const;
/** The server's own extra emoji, named by itself. */
const EXTRA_EMOJI = new Set(['zulip']);

interface Emoji {
  readonly name: string;
  readonly code: string;
  readonly type: ReactionType;
}

/** An emoji by name: the organization's own first, then the extra ones, then Unicode. */
async function emojiNamed(ctx: UserContext, name: string): Promise<Emoji> {
  const data = await loadRenderData(ctx.app.db, ctx.realm.id);
  const custom = data.emoji.get(name);
  if (custom) return { name, code: custom.id, type: 'realm_emoji' };
  if (EXTRA_EMOJI.has(name)) return { name, code: name, type: 'service_extra_emoji' };
  const unicode = emojiByName(name);
  if (unicode) return { name, code: unicode.code, type: 'unicode_emoji' };
  throw errors.badRequest(`Emoji '${name}' does not exist`);
}

const customEmojiRow = z.object({ name: z.string(), deactivated: z.boolean() });

/** An explicitly coded emoji must exist and carry the name given with it. */
async function checkEmoji(ctx: UserContext, e: Emoji): Promise<void> {
  switch (e.type) {
    case 'realm_emoji': {
      const row = /^\d{1,9}$/.test(e.code)
        ? await ctx.app.db.maybeOne(sql.type(customEmojiRow)`
            SELECT name, deactivated FROM realm_emoji WHERE id = ${Number(e.code)} AND realm_id = ${ctx.realm.id}`)
        : null;
      if (!row) throw errors.badRequest('Invalid custom emoji.');
      if (row.name !== e.name) throw errors.badRequest('Invalid custom emoji name.');
      if (row.deactivated) throw errors.badRequest('This custom emoji has been deactivated.');
      return;
    }
    case 'service_extra_emoji':
      if (!EXTRA_EMOJI.has(e.code)) throw errors.badRequest('Invalid emoji code.');
      if (e.name !== e.code) throw errors.badRequest('Invalid emoji name.');
      return;
    case 'unicode_emoji': {
      const known = emojiByCode(e.code);
      if (!known || known.code !== e.code) throw errors.badRequest('Invalid emoji code.');
      // Any name of the emoji (or of its base, for a skin-toned code) will do.
      const named = emojiByName(e.name);
      if (!named || named.code !== emojiByName(known.name)?.code) throw errors.badRequest('Invalid emoji name.');
      return;
    }
  }
}

const params = z.object({
  message_id: p.int(),
  emoji_name: p.string().optional(),
  emoji_code: p.string().optional(),
  reaction_type: p.enum(REACTION_TYPES).optional(),
});

export const addReaction = userEndpoint(params, async (ctx, q) => {
  if (q.emoji_name === undefined) throw errors.missingArgument('emoji_name');
  const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
  let emoji: Emoji;
  if (q.emoji_code === undefined) emoji = await emojiNamed(ctx, q.emoji_name);
  else {
    const type = q.reaction_type ?? (await emojiNamed(ctx, q.emoji_name)).type;
    emoji = { name: q.emoji_name, code: q.emoji_code, type };
    await checkEmoji(ctx, emoji);
  }
  await ctx.realm.conversations.ask(conversationKeyOf(row), 'react', {
    op: 'add',
    userId: ctx.user.id,
    messageId: row.id,
    emojiName: emoji.name,
    emojiCode: emoji.code,
    reactionType: emoji.type,
  });
  return {};
});

export const removeReaction = userEndpoint(params, async (ctx, q) => {
  const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
  let code = q.emoji_code;
  let type: ReactionType = q.reaction_type ?? 'unicode_emoji';
  if (code === undefined) {
    if (q.emoji_name === undefined) throw errors.badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
    const e = await emojiNamed(ctx, q.emoji_name);
    code = e.code;
    type = q.reaction_type ?? e.type;
  } else if (type === 'unicode_emoji' && emojiByCode(code)?.code !== code) {
    throw errors.badRequest('Invalid emoji code.');
  }
  await ctx.realm.conversations.ask(conversationKeyOf(row), 'react', {
    op: 'remove',
    userId: ctx.user.id,
    messageId: row.id,
    emojiName: q.emoji_name ?? '',
    emojiCode: code,
    reactionType: type,
  });
  return {};
});
