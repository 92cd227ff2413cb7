// Messages: POST /messages (send, with Idempotency-Key), GET /messages (narrows and anchors),
// GET /messages/{id} (also for spectators: web-public channels), POST /messages/render.
import { z } from 'zod';
import { renderAs, submitMessage, type MessageTarget } from '../../actors/conversations/compose.js';
import { accessibleMessage } from '../../actors/conversations/message-view.js';
import { renderData, type RenderData } from '../../actors/realm/markdown-context.js';
import { clientName, defaultReadBySender, parseChannelTo, parseDmTo } from '../../actors/conversations/send-rules.js';
import { errors } from '../../domain/errors.js';
import type { RenderResult } from '../../domain/markdown/index.js';
import { normalizeContent } from '../../domain/message-rules.js';
import { checkNarrow, messageNarrowSchema } from '../../domain/narrow.js';
import { FLAG_BITS } from '../../domain/flags.js';
import { rowsOf } from '../../store/message-edits.js';
import { searchIds, type FoundMessage } from '../../store/message-search.js';
import { publicEndpoint, userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';
import { anchorParam, fetchWindow, highlight, resolveNarrow, shapeFound } from '../views/message-fetch.js';
import { resolveSpectatorNarrow, spectatorMessage } from '../views/spectator-access.js';

const MAX_MESSAGES_PER_FETCH = 5000;
const IDEMPOTENCY_KEY_MAX = 255;

export function renderFor(ctx: UserContext, data: RenderData, content: string): RenderResult {
  return renderAs(ctx.realm, ctx.user, data, content);
}

const sendParams = z.object({
  type: p.enum(['direct', 'private', 'stream', 'channel']),
  to: p.string(),
  content: p.string({ nul: 'handler' }),
  topic: p.string().optional(),
  subject: p.string().optional(),
  queue_id: p.string().optional(),
  local_id: p.string().optional(),
  read_by_sender: p.bool().optional(),
});

export const sendMessage = userEndpoint(sendParams, async (ctx, q) => {
  const key = ctx.headers['idempotency-key'];
  // Printable ASCII, as a structured-field string would be: no NUL (Postgres refuses it), no controls.
  if (key !== undefined && (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x20-\x7e]+$/.test(key))) {
    throw errors.badRequest('Invalid Idempotency-Key header');
  }
  if (q.queue_id !== undefined && q.local_id === undefined) throw errors.missingArgument('local_id');
  const content = normalizeContent(q.content);
  const client = clientName(ctx.headers['user-agent']);
  let to: MessageTarget;
  if (q.type === 'stream' || q.type === 'channel') {
    const topic = q.topic ?? q.subject;
    if (topic === undefined) throw errors.missingTopic();
    to = { channel: parseChannelTo(q.to), topic };
  } else {
    to = { dm: parseDmTo(q.to) };
  }
  const id = await submitMessage(ctx.realm, ctx.user, {
    to,
    content,
    readBySender: q.read_by_sender ?? defaultReadBySender(client),
    client,
    idempotencyKey: key,
    local: q.queue_id !== undefined ? { queue_id: q.queue_id, local_id: q.local_id! } : undefined,
  });
  return { id };
});

const fetchParams = z.object({
  anchor: anchorParam().optional(),
  include_anchor: p.bool().default('true'),
  num_before: p.int({ min: 0 }).optional(),
  num_after: p.int({ min: 0 }).optional(),
  narrow: p.json(messageNarrowSchema).default('[]'),
  client_extavatar: p.bool().optional(),
  apply_markdown: p.bool().default('true'),
  use_first_unread_anchor: p.bool().default('false'),
  message_ids: p.intList().optional(),
  allow_empty_topic_name: p.bool().default('false'),
});

/** A topic as HTML, escaped as a search's highlighted topic is. */
const topicHtml = (topic: string) => topic.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * GET /messages/matches_narrow: which of these messages the narrow takes (of those the user may
 * read), each with its content and topic as GET /messages would show them in that narrow
 * (highlighted for a search), for clients that cannot tell on their own whether a new message
 * belongs in a view.
 */
export const messagesMatchNarrow = userEndpoint(z.object({ msg_ids: p.intList(), narrow: p.json(messageNarrowSchema) }), async (ctx, q) => {
  const query = resolveNarrow(ctx.realm, ctx.user, checkNarrow(q.narrow));
  const messages: Record<string, { match_content: string; match_subject: string }> = {};
  for (const row of await searchIds(ctx.app.db, query, q.msg_ids)) {
    messages[String(row.id)] = {
      match_content: highlight(row.match_content ?? row.rendered_content),
      match_subject: highlight(row.match_subject ?? topicHtml(row.topic ?? '')),
    };
  }
  return { messages };
});

/** Spectators have no flags of their own: every message reads as read. */
const asSpectator = (rows: readonly FoundMessage[]): FoundMessage[] => rows.map((r) => ({ ...r, flags: FLAG_BITS.read }));

/** GET /messages: with credentials, or — spectators — with a narrow on web-public channels. */
export const getMessages = publicEndpoint(fetchParams, async (ctx, q) => {
  const { realm, user } = ctx;
  const db = ctx.app.db;
  const narrow = checkNarrow(q.narrow);
  const query = user ? resolveNarrow(realm, user, narrow) : resolveSpectatorNarrow(realm, narrow);
  const shape = {
    applyMarkdown: q.apply_markdown,
    clientExtavatar: q.client_extavatar ?? user !== null,
    allowEmptyTopicName: q.allow_empty_topic_name,
  };
  const shown = (rows: readonly FoundMessage[]) => shapeFound(realm, user ? rows : asSpectator(rows), shape);
  if (q.message_ids !== undefined) {
    for (const name of ['anchor', 'num_before', 'num_after'] as const) {
      if (q[name] !== undefined) throw errors.incompatibleParameters([name, 'message_ids']);
    }
    return { messages: await shown(await searchIds(db, query, q.message_ids)), history_limited: false };
  }
  if (q.num_before === undefined) throw errors.missingArgument('num_before');
  if (q.num_after === undefined) throw errors.missingArgument('num_after');
  if (q.num_before + q.num_after > MAX_MESSAGES_PER_FETCH) throw errors.tooManyMessages(MAX_MESSAGES_PER_FETCH);
  const anchor = q.anchor ?? (q.use_first_unread_anchor ? 'first_unread' : undefined);
  if (anchor === undefined) throw errors.missingArgument('anchor');
  const w = await fetchWindow(db, query, { anchor, numBefore: q.num_before, numAfter: q.num_after, includeAnchor: q.include_anchor });
  return {
    anchor: w.anchor,
    found_anchor: w.foundAnchor,
    found_oldest: w.foundOldest,
    found_newest: w.foundNewest,
    history_limited: false,
    messages: await shown(w.messages),
  };
});

/** GET /messages/{id}: a message the caller may read; spectators, one in a web-public channel. */
export const getMessage = publicEndpoint(
  z.object({ message_id: p.int(), apply_markdown: p.bool().default('true'), allow_empty_topic_name: p.bool().default('false') }),
  async (ctx, q) => {
    const { row, flags } = ctx.user
      ? await accessibleMessage(ctx.realm, ctx.user, q.message_id)
      : { row: await spectatorMessage(ctx.realm, q.message_id), flags: FLAG_BITS.read };
    const [message] = await shapeFound(ctx.realm, [{ ...row, flags, match_content: null, match_subject: null }], {
      applyMarkdown: q.apply_markdown,
      clientExtavatar: ctx.user !== null,
      allowEmptyTopicName: q.allow_empty_topic_name,
    });
    return { message: message!, raw_content: row.content };
  },
);

export const renderMessage = userEndpoint(z.object({ content: p.string() }), async (ctx, q) => {
  const data = renderData(ctx.realm.state);
  return { rendered: renderFor(ctx, data, q.content).html };
});

/**
 * GET /messages/{id}/read_receipts: who has read a message the caller may read. Not its sender,
 * nor deactivated users, nor those whose send_read_receipts is off, nor those who muted the
 * caller (they may not want the muted user to know); bots that marked it read, yes.
 */
export const getReadReceipts = userEndpoint(z.object({ message_id: p.int() }), async (ctx, q) => {
  const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
  const state = ctx.realm.state;
  if (!state.realm.settings.enable_read_receipts) throw errors.badRequest('Read receipts are disabled in this organization.');
  const readers: number[] = [];
  for (const r of await rowsOf(ctx.app.db, [row.id])) {
    if ((r.flags & FLAG_BITS.read) === 0 || r.user_id === row.sender_id) continue;
    const u = state.user(r.user_id);
    if (u?.is_active && u.settings.send_read_receipts && !state.mutes.has(u.id, ctx.user.id)) readers.push(u.id);
  }
  return { user_ids: readers.sort((a, b) => a - b) };
});
