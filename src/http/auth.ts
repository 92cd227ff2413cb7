// HTTP Basic authentication: `email:api_key` checked against the cached realm state. No database
// round trip; the key comparison is constant-time and done even for unknown emails. The username
// is the API email; the real address is accepted too, so that a client keeps working when the
// user's email visibility turns their API email into a dummy address.
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import { errors } from '../domain/errors.js';
import { apiKeyMatches, type ServerSecret } from '../domain/secrets.js';

const NO_SUCH_KEY = Buffer.alloc(32);

/** Decode `Basic base64(email:key)`; throws 401 for anything else. */
export function parseBasicAuth(header: string): { email: string; key: string } {
  const m = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) throw errors.invalidAuthorizationHeader();
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.lastIndexOf(':');
  if (colon <= 0) throw errors.invalidAuthorizationHeader();
  return { email: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

export function authenticate(secret: ServerSecret, realm: RealmHandle, header: string): UserRecord {
  const { email, key } = parseBasicAuth(header);
  const user = realm.state.userByEmail(email) ?? realm.state.userByDeliveryEmail(email);
  const matches = apiKeyMatches(secret, key, user ? user.api_key_hash : NO_SUCH_KEY);
  if (!user || !matches) throw errors.invalidApiKey();
  if (realm.state.realm.deactivated) throw errors.realmDeactivated();
  if (!user.is_active) throw errors.userDeactivated();
  return user;
}
