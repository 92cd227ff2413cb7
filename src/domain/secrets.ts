// API keys, session tokens and passwords. A database copy alone reveals none of them: keys are
// stored as an HMAC under the server secret (to look them up) plus a copy sealed with that secret
// through tweetnacl's secretbox (POST /fetch_api_key returns the existing key); session tokens
// only as an HMAC. Passwords use scrypt.
import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import nacl from 'tweetnacl';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 32;

/** Random alphanumeric string; uniform (crypto.randomInt rejects biased draws). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export const generateApiKey = () => randomAlphanumeric(API_KEY_LENGTH);

export interface ServerSecret {
  readonly key: Uint8Array; // 32 bytes
}

export function secretFromBase64(b64: string): ServerSecret {
  const key = Buffer.from(b64, 'base64');
  if (key.length !== nacl.secretbox.keyLength) throw new Error('The server secret must be 32 bytes');
  return { key: new Uint8Array(key) };
}

export const newServerSecret = (): string => randomBytes(nacl.secretbox.keyLength).toString('base64');

export function hashApiKey(secret: ServerSecret, apiKey: string): Buffer {
  return createHmac('sha256', secret.key).update(apiKey, 'utf8').digest();
}

/** A new browser-session token: 256 random bits, URL-safe (the cookie's value). */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');
export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What is stored of a session token: its HMAC under the server secret (a lookup key, not the cookie). */
export function hashSessionToken(secret: ServerSecret, token: string): Buffer {
  return createHmac('sha256', secret.key).update('session:').update(token, 'utf8').digest();
}

/** Constant-time check of a presented key against the stored HMAC. */
export function apiKeyMatches(secret: ServerSecret, presented: string, storedHash: Uint8Array): boolean {
  const h = hashApiKey(secret, presented);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}

export function sealApiKey(secret: ServerSecret, apiKey: string): Buffer {
  const nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
  const box = nacl.secretbox(new TextEncoder().encode(apiKey), nonce, secret.key);
  return Buffer.concat([nonce, box]);
}

export function unsealApiKey(secret: ServerSecret, sealed: Uint8Array): string {
  const nonce = sealed.subarray(0, nacl.secretbox.nonceLength);
  const box = sealed.subarray(nacl.secretbox.nonceLength);
  const opened = nacl.secretbox.open(box, nonce, secret.key);
  if (!opened) throw new Error('API key cannot be unsealed with this server secret');
  return new TextDecoder().decode(opened);
}

// scrypt parameters: N=2^15 costs ~100 ms and 32 MiB, off the event loop (libuv pool).
const SCRYPT = { N: 1 << 15, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, keylen, { N, r, p, maxmem: SCRYPT.maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const key = await scryptAsync(password, Buffer.from(saltB64, 'base64'), Number(n), Number(r), Number(p), expected.length);
  return timingSafeEqual(key, expected);
}

/** A password for accounts created without one (printed once, never stored in clear). */
export const generatePassword = () => randomAlphanumeric(20);
