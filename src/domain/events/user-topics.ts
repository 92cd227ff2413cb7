// `user_topic`: one user's setting for one topic changed (visibility_policy 0 = none).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const userTopicEvent = defineEvent(
  'user_topic',
  z.object({
    stream_id: z.number().int(),
    topic_name: z.string(),
    last_updated: z.number().int(),
    visibility_policy: z.number().int().min(0).max(3),
  }),
);

export const VisibilityPolicy = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;
