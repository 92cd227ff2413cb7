// Emoji reactions: POST and DELETE /messages/{id}/reactions (endpoint 15).
import { z } from 'zod';
import { emojiNamed, resolveEmoji, type ReactionType } from '../../actors/realm/emoji-request.js';
import { emojiByCode } from '../../domain/emoji.js';
import { errors } from '../../domain/errors.js';
import { conversationKeyOf } from '../../actors/conversations/conversations.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';
import { accessibleMessage } from '../../actors/conversations/message-view.js';

const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'service_extra_emoji'] as const;

const params = z.object({
  message_id: p.int(),
  emoji_name: p.string().optional(),
  emoji_code: p.string().optional(),
  reaction_type: p.enum(REACTION_TYPES).optional(),
});

export const addReaction = userEndpoint(params, async (ctx, q) => {
  if (q.emoji_name === undefined) throw errors.missingArgument('emoji_name');
  const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
  const emoji = resolveEmoji(ctx.realm.state, q.emoji_name, q.emoji_code, q.reaction_type);
  await ctx.realm.conversations.ask(conversationKeyOf(row), 'react', {
    op: 'add',
    userId: ctx.user.id,
    messageId: row.id,
    emojiName: emoji.emoji_name,
    emojiCode: emoji.emoji_code,
    reactionType: emoji.reaction_type,
  });
  return {};
});

export const removeReaction = userEndpoint(params, async (ctx, q) => {
  const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
  let code = q.emoji_code;
  let type: ReactionType = q.reaction_type ?? 'unicode_emoji';
  if (code === undefined) {
    if (q.emoji_name === undefined) throw errors.badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
    const e = emojiNamed(ctx.realm.state, q.emoji_name);
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
