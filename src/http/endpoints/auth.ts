// POST /fetch_api_key: password login for clients, rate limited per account and per address.
import { z } from 'zod';
import { unsealApiKey } from '../../domain/secrets.js';
import { publicEndpoint } from '../endpoint.js';
import { p } from '../params.js';
import { checkPasswordLogin } from '../password-login.js';

export const fetchApiKey = publicEndpoint(
  z.object({ username: p.string(), password: p.string() }),
  async (ctx, { username, password }) => {
    const { user, apiKeySealed } = await checkPasswordLogin(ctx.app, ctx.realm, ctx.remoteAddress, username, password);
    return { api_key: unsealApiKey(ctx.app.secret, apiKeySealed), email: user.email, user_id: user.id };
  },
  'none',
);
