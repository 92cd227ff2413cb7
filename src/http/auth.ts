// HTTP Basic authentication: `email:api_key` checked against the cached realm state. No database
// round trip; the key comparison is constant-time and done even for unknown emails. The username
// is the API email; the real address is accepted too, so that a client keeps working when the
// user's email visibility turns their API email into a dummy address.
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import { errors } from '../domain/errors.js';
import { apiKeyMatches, type ServerSecret } from '../domain/secrets.js';
import { RecentlyUsed } from '../recently-used.js';

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

/**
 * Headers that passed the key check, per organization, with the user record they matched. A
 * client sends the same header with every request, and the HMAC is most of the cost of
 * authenticating. A hit counts only while that record is the user's current one: user records
 * are replaced, never changed, so a new key, a changed email (the API email follows the email
 * visibility), a deactivation or any other change of the user sends the header through the full
 * check again (and the entry then holds the current record). Only headers that matched are kept,
 * so a hit tells a caller nothing it did not already know. The cache holds the clients that make
 * requests now, not every client connected: a client whose poll stays parked makes one about
 * every heartbeat (50 s by default), and its full check (about 3 µs) costs less than holding its
 * header.
 */
const verified = new WeakMap<RealmHandle, RecentlyUsed<string, UserRecord>>();
/** Headers per generation of an organization's cache (at most twice as many are kept). */
const VERIFIED_GENERATION = 4096;

export function authenticate(secret: ServerSecret, realm: RealmHandle, header: string): UserRecord {
  let known = verified.get(realm);
  const hit = known?.get(header);
  let user = hit !== undefined && realm.state.user(hit.id) === hit ? hit : undefined;
  if (!user) {
    const { email, key } = parseBasicAuth(header);
    user = realm.state.userByEmail(email) ?? realm.state.userByDeliveryEmail(email);
    const matches = apiKeyMatches(secret, key, user ? user.api_key_hash : NO_SUCH_KEY);
    if (!user || !matches) throw errors.invalidApiKey();
    if (!known) verified.set(realm, (known = new RecentlyUsed(VERIFIED_GENERATION)));
    known.set(header, user);
  }
  if (realm.state.realm.deactivated) throw errors.realmDeactivated();
  if (!user.is_active) throw errors.userDeactivated();
  return user;
}
