// The one password check behind every login: POST /api/v1/fetch_api_key (clients) and POST /login
// (browsers). Failures of either count against the same limits, per account and per address, so
// a guesser gains nothing by switching between them.
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import type { App } from '../app.js';
import { errors } from '../domain/errors.js';
import { verifyPassword } from '../domain/secrets.js';
import { getCredentials } from '../store/users.js';

// Verifying against this keeps a failed lookup as slow as a wrong password.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export interface PasswordLogin {
  readonly user: UserRecord;
  /** The account's API key, sealed under the server secret. */
  readonly apiKeySealed: Buffer;
}

/**
 * Check `username` (real or API email) and `password` in this organization. Throws
 * RATE_LIMIT_HIT while the account or the address is over its failure limit (even for the right
 * password), AUTHENTICATION_FAILED alike for an unknown account and a wrong password, and the
 * deactivation errors only once the password was right.
 */
export async function checkPasswordLogin(
  app: App,
  realm: RealmHandle,
  remoteAddress: string,
  username: string,
  password: string,
): Promise<PasswordLogin> {
  const { perUser, perIp } = app.loginLimits;
  const name = username.trim();
  const userKey = `${realm.id}:${name.toLowerCase()}`;
  const wait = Math.max(perUser.retryAfter(userKey), perIp.retryAfter(remoteAddress));
  if (wait > 0) throw errors.rateLimited(wait);

  const user = realm.state.userByDeliveryEmail(name) ?? realm.state.userByEmail(name);
  const creds = user ? await getCredentials(app.db, user.id) : null;
  const valid = await verifyPassword(password, creds?.password_hash ?? DUMMY_HASH);
  if (!user || !creds || !valid) {
    perUser.record(userKey);
    perIp.record(remoteAddress);
    throw errors.badCredentials();
  }
  if (realm.state.realm.deactivated) throw errors.realmDeactivated();
  if (!user.is_active) throw errors.userDeactivated();
  perUser.reset(userKey);
  return { user, apiKeySealed: creds.api_key_sealed };
}
