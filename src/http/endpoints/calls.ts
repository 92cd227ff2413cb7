// POST /calls/videocall/create (endpoint 22): a new meeting room on the configured server.
import { z } from 'zod';
import { errors } from '../../domain/errors.js';
import { isGuest } from '../../domain/roles.js';
import { newMeetingUrl } from '../../domain/videocalls.js';
import { userEndpoint } from '../endpoint.js';

export const createVideoCall = userEndpoint(z.object({}), async (ctx) => {
  const server = ctx.app.config.videocallUrl;
  if (server === undefined) throw errors.videocallsNotConfigured();
  if (isGuest(ctx.user.role)) throw errors.notAllowedForGuests();
  return { url: newMeetingUrl(server) };
});
