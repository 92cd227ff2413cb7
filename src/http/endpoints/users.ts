// Users: GET /users/me.
import { sql } from 'slonik';
import { z } from 'zod';
import { formatUser } from '../../domain/user-view.js';
import { userEndpoint } from '../endpoint.js';

export const getOwnUser = userEndpoint(z.object({}), async (ctx) => {
  const { user } = ctx;
  const maxMessageId = await ctx.app.db.oneFirst(
    sql.type(z.object({ m: z.number() }))`
      SELECT coalesce(max(message_id), -1)::bigint AS m FROM user_messages WHERE user_id = ${user.id}`,
  );
  return {
    ...formatUser(user, user, { clientExtavatar: false, profileData: user.is_bot ? undefined : {} }),
    max_message_id: maxMessageId,
  };
});
