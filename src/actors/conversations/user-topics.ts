// Setting a user's visibility policy for a topic (mute, unmute, follow, or back to none); runs in
// the owner of the user's personal data. The caller checked the channel and the topic name.
import { userTopicEvent } from '../../domain/events/user-topics.js';
import { setUserTopic } from '../../store/user-topics.js';
import type { WriteContext } from './conversations.js';

export interface SetUserTopicInput {
  readonly userId: number;
  readonly channelId: number;
  readonly topic: string;
  readonly policy: number;
}

export async function setUserTopicPolicy(ctx: WriteContext, input: SetUserTopicInput): Promise<void> {
  const now = ctx.services.clock.now();
  await ctx.write(async (tx, emit) => {
    await setUserTopic(tx, input.userId, input.channelId, input.topic, input.policy, now);
    emit(
      userTopicEvent.build(
        { stream_id: input.channelId, topic_name: input.topic, last_updated: Math.floor(now / 1000), visibility_policy: input.policy },
        { userIds: [input.userId] },
      ),
    );
  });
}
