// POST /fetch_api_key: password login for clients, rate limited per account and per address.
import { z } from 'zod';
import { errors } from '../../domain/errors.js';
import { unsealApiKey, verifyPassword } from '../../domain/secrets.js';
import { getCredentials } from '../../store/users.js';
import { publicEndpoint } from '../endpoint.js';
import { p } from '../params.js';

// Verifying against this keeps a failed lookup as slow as a wrong password.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export const fetchApiKey = publicEndpoint(
  z.object({ username: p.string(), password: p.string() }),
  async (ctx, { username, password }) => {
    const { perUser, perIp } = ctx.app.loginLimits;
    const realm = ctx.realm;
    const userKey = `${realm.id}:${username.trim().toLowerCase()}`;
    const ipKey = ctx.remoteAddress;
    const wait = Math.max(perUser.retryAfter(userKey), perIp.retryAfter(ipKey));
    if (wait > 0) throw errors.rateLimited(wait);

    const user = realm.state.userByDeliveryEmail(username.trim()) ?? realm.state.userByEmail(username.trim());
    const creds = user ? await getCredentials(ctx.app.db, user.id) : null;
    const valid = await verifyPassword(password, creds?.password_hash ?? DUMMY_HASH);
    if (!user || !creds || !valid) {
      perUser.record(userKey);
      perIp.record(ipKey);
      throw errors.badCredentials();
    }
    if (realm.state.realm.deactivated) throw errors.realmDeactivated();
    if (!user.is_active) throw errors.userDeactivated();
    perUser.reset(userKey);
    return { api_key: unsealApiKey(ctx.app.secret, creds.api_key_sealed), email: user.email, user_id: user.id };
  },
  'none',
);
