// Drafts: GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}. A draft's audience is checked as a
// message's would be (a channel the user may read, users they may see), its content as a
// message's; the writes run in the owner of the user's personal data (drafts events).
import { z } from 'zod';
import { formatDraft } from '../../actors/conversations/drafts.js';
import { resolveDmRecipients } from '../../actors/conversations/send-rules.js';
import { errors } from '../../domain/errors.js';
import { LAST_TIMESTAMP, normalizeContent } from '../../domain/message-rules.js';
import { truncateTopic } from '../../domain/topic-names.js';
import { listDrafts, type DraftData } from '../../store/drafts.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { j, p } from '../params.js';
import { readableChannel } from './channels.js';

const draftShape = z.object({
  // Given back by clients that edit what they fetched; the path names the draft.
  id: j.int().optional(),
  type: z.enum(['', 'stream', 'private']),
  to: z.array(j.int()),
  topic: z.string(),
  content: z.string(),
  timestamp: z.number().optional(),
});
type DraftInput = z.infer<typeof draftShape>;

/** A draft as stored: its audience checked and normalised, its content as a message's. */
function checkedDraft(ctx: UserContext, d: DraftInput): DraftData {
  const content = normalizeContent(d.content);
  const seconds = d.timestamp ?? ctx.app.clock.now() / 1000;
  if (seconds < 0) throw errors.badRequest('Timestamp must not be negative.');
  if (seconds > LAST_TIMESTAMP) throw errors.badRequest('Timestamp must not be after the year 9999.');
  // Whole seconds, as clients see it: the order drafts are listed in (last edit, then id) is the
  // order of what they are shown.
  const lastEditMs = Math.floor(seconds) * 1000;
  if (d.type === 'stream') {
    if (d.to.length !== 1) throw errors.badRequest('Must specify exactly 1 channel ID for channel messages');
    const c = readableChannel(ctx, d.to[0]!);
    return { type: 'stream', to: [c.id], topic: truncateTopic(d.topic), content, lastEditMs };
  }
  if (d.type === 'private' && d.to.length > 0) {
    const others = resolveDmRecipients(ctx.realm.state, ctx.user, d.to)
      .map((u) => u.id)
      .filter((id) => id !== ctx.user.id)
      .sort((a, b) => a - b);
    return { type: 'private', to: others.length > 0 ? others : [ctx.user.id], topic: '', content, lastEditMs };
  }
  // Unaddressed: a direct message draft without recipients is one too.
  return { type: '', to: [], topic: '', content, lastEditMs };
}

function checkSynchronized(ctx: UserContext): void {
  if (!ctx.user.settings.enable_drafts_synchronization) throw errors.draftsNotSynchronized();
}

export const getDrafts = userEndpoint(z.object({}), async (ctx) => {
  const drafts = (await listDrafts(ctx.app.db, ctx.user.id)).map(formatDraft);
  return { count: drafts.length, drafts };
});

export const createDrafts = userEndpoint(z.object({ drafts: p.json(z.array(draftShape)) }), async (ctx, q) => {
  checkSynchronized(ctx);
  const drafts = q.drafts.map((d) => checkedDraft(ctx, d));
  return { ids: await ctx.realm.conversations.askUser(ctx.user.id, 'draft.create', { userId: ctx.user.id, drafts }) };
});

export const editDraft = userEndpoint(z.object({ draft_id: p.int(), draft: p.json(draftShape) }), async (ctx, q) => {
  checkSynchronized(ctx);
  const draft = checkedDraft(ctx, q.draft);
  await ctx.realm.conversations.askUser(ctx.user.id, 'draft.edit', { userId: ctx.user.id, id: q.draft_id, draft });
  return {};
});

export const deleteDraft = userEndpoint(z.object({ draft_id: p.int() }), async (ctx, q) => {
  await ctx.realm.conversations.askUser(ctx.user.id, 'draft.delete', { userId: ctx.user.id, id: q.draft_id });
  return {};
});
