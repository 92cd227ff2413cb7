// Browser sessions: a cookie holding a random token, of which the database keeps only the HMAC.
// They authenticate the site-root routes a browser loads directly (uploaded files, avatars), never
// /api/v1 — the API takes no ambient credentials, so it has no cross-site request forgery surface.
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import type { App } from '../app.js';
import { hashSessionToken, newSessionToken, SESSION_TOKEN_PATTERN } from '../domain/secrets.js';
import { deleteSession, insertSession, sessionUserId } from '../store/sessions.js';

export const SESSION_COOKIE = 'parley_session';

/** The session token of a Cookie header, if it carries a well-formed one. */
export function sessionToken(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(/[;,]/)) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (SESSION_TOKEN_PATTERN.test(value)) return value;
  }
  return null;
}

function cookie(realm: RealmHandle, value: string, maxAgeSeconds: number): string {
  const secure = realm.state.realm.url.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** Start a session for an account; returns the Set-Cookie header value. */
export async function startSession(app: App, realm: RealmHandle, userId: number): Promise<string> {
  const token = newSessionToken();
  const lifetime = app.config.sessionLifetimeSeconds;
  const now = app.clock.now();
  await insertSession(app.db, {
    tokenHash: hashSessionToken(app.secret, token),
    realmId: realm.id,
    userId,
    nowMs: now,
    expiresAtMs: now + lifetime * 1000,
  });
  return cookie(realm, token, lifetime);
}

/**
 * The account of the request's session cookie, or null: no cookie, an unknown or expired token,
 * another organization's session, or an account or organization deactivated since (their sessions
 * are deleted then; the cached flags are checked as well).
 */
export async function sessionUser(app: App, realm: RealmHandle, cookieHeader: string | undefined): Promise<UserRecord | null> {
  const token = sessionToken(cookieHeader);
  if (!token) return null;
  const userId = await sessionUserId(app.db, realm.id, hashSessionToken(app.secret, token), app.clock.now());
  const user = userId === null ? undefined : realm.state.user(userId);
  if (!user || !user.is_active || realm.state.realm.deactivated) return null;
  return user;
}

/** End the request's session (if any); returns the Set-Cookie header value that clears the cookie. */
export async function endSession(app: App, realm: RealmHandle, cookieHeader: string | undefined): Promise<string> {
  const token = sessionToken(cookieHeader);
  if (token) await deleteSession(app.db, hashSessionToken(app.secret, token));
  return cookie(realm, '', 0);
}
