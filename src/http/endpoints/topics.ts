// Topics: GET /users/me/{stream_id}/topics (endpoint 16), POST /user_topics and the deprecated
// PATCH /users/me/subscriptions/muted_topics (endpoint 4).
import { z } from 'zod';
import { canReadChannel, canReadFullHistory } from '../../actors/realm/channel-view.js';
import { errors } from '../../domain/errors.js';
import { VisibilityPolicy } from '../../domain/events/user-topics.js';
import { topicFromClient } from '../../domain/events/topics.js';
import { MAX_TOPIC_LENGTH } from '../../domain/topic-names.js';
import { channelTopics } from '../../store/message-edits.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';
import { readableChannel } from './channels.js';

export const getTopics = userEndpoint(
  z.object({ stream_id: p.int(), allow_empty_topic_name: p.bool().default('false') }),
  async (ctx, q) => {
    const c = readableChannel(ctx, q.stream_id);
    const onlyMine = canReadFullHistory(ctx.realm.state, ctx.user, c) ? null : ctx.user.id;
    const display = ctx.realm.state.realm.settings.empty_topic_display_name;
    const topics = await channelTopics(ctx.app.db, c.id, onlyMine);
    return { topics: topics.map((t) => ({ name: t.name === '' && !q.allow_empty_topic_name ? display : t.name, max_id: t.max_id })) };
  },
);

/** Topic settings are for channels the user is subscribed to (and may read). */
function subscribedChannel(ctx: UserContext, channelId: number) {
  const c = ctx.realm.state.channels.get(channelId);
  if (!c || !canReadChannel(ctx.realm.state, ctx.user, c)) throw errors.invalidChannelId();
  if (!ctx.realm.state.channels.isSubscribed(ctx.user.id, c.id)) throw errors.notSubscribed(c.id);
  return c;
}

const topicParam = () => p.string({ max: MAX_TOPIC_LENGTH });

async function setPolicy(ctx: UserContext, channelId: number, rawTopic: string, policy: number): Promise<void> {
  const c = subscribedChannel(ctx, channelId);
  const topic = topicFromClient(rawTopic.trim(), ctx.realm.state.realm.settings.empty_topic_display_name);
  await ctx.realm.conversations.askUser(ctx.user.id, 'userTopic.set', { userId: ctx.user.id, channelId: c.id, topic, policy });
}

export const updateUserTopic = userEndpoint(
  z.object({
    stream_id: p.int(),
    topic: topicParam(),
    visibility_policy: p.int().refine((v) => [0, 1, 2, 3].includes(v), { message: 'Invalid {var}' }),
  }),
  async (ctx, q) => {
    await setPolicy(ctx, q.stream_id, q.topic, q.visibility_policy);
    return {};
  },
);

export const muteTopic = userEndpoint(
  z.object({
    stream_id: p.int().optional(),
    stream: p.string().optional(),
    topic: topicParam(),
    op: p.enum(['add', 'remove']),
  }),
  async (ctx, q) => {
    if (q.stream_id !== undefined && q.stream !== undefined) throw errors.incompatibleParameters(['stream_id', 'stream']);
    let channelId = q.stream_id;
    if (channelId === undefined) {
      if (q.stream === undefined) throw errors.missingArgument('stream_id');
      const c = ctx.realm.state.channels.byName(q.stream);
      if (!c || !canReadChannel(ctx.realm.state, ctx.user, c)) throw errors.invalidChannelName(q.stream);
      channelId = c.id;
    }
    await setPolicy(ctx, channelId, q.topic, q.op === 'add' ? VisibilityPolicy.muted : VisibilityPolicy.inherit);
    return {};
  },
);
