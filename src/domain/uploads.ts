// Uploaded files: their path ids (`{realm_id}/{2 hex}/{24 random}/{sanitized name}`), safe file
// names, which types a browser may show inline, and the signed short-lived URLs of
// GET /api/v1/user_uploads/….
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomAlphanumeric, type ServerSecret } from './secrets.js';

const MAX_NAME_LENGTH = 200;

/** A file name safe in a path and a URL: no directories, letters, digits, dot, dash, underscore. */
export function sanitizeFileName(raw: string): string {
  const base = raw.normalize('NFKC').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/\s+/g, '-')
    .replace(/[^\p{L}\p{N}._-]/gu, '')
    .replace(/^[.-]+/, '');
  // Cut by code points: a cut by UTF-16 units could keep half of an astral letter.
  const kept = [...cleaned].slice(0, MAX_NAME_LENGTH).join('');
  return kept === '' ? 'uploaded-file' : kept;
}

export function newPathId(realmId: number, fileName: string): string {
  return `${realmId}/${randomBytes(1).toString('hex')}/${randomAlphanumeric(24)}/${sanitizeFileName(fileName)}`;
}

const PATH_ID = /^(\d+)\/[0-9a-f]{2}\/[A-Za-z0-9]{24}\/[^/]+$/u;
export const isPathId = (s: string): boolean => PATH_ID.test(s) && !s.includes('..');

/** Types a browser may render from our origin; everything else is a download. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'text/plain', 'application/pdf', 'audio/mpeg', 'audio/ogg', 'video/mp4', 'video/webm']);

export function servedContentType(declared: string): { type: string; inline: boolean } {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  return INLINE_TYPES.has(type) ? { type: type === 'text/plain' ? 'text/plain; charset=utf-8' : type, inline: true } : { type: 'application/octet-stream', inline: false };
}

/** Content-Disposition with the name in both the legacy and the RFC 6266 forms. */
export function contentDisposition(inline: boolean, name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const sign = (secret: ServerSecret, body: string) => createHmac('sha256', secret.key).update(`upload:${body}`).digest('base64url');

/** A token naming a file until `expiresMs`. */
export function temporaryToken(secret: ServerSecret, pathId: string, expiresMs: number): string {
  const body = Buffer.from(JSON.stringify([pathId, Math.floor(expiresMs / 1000)])).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

/** The file a token names, if it is genuine and not expired. */
export function readTemporaryToken(secret: ServerSecret, token: string, nowMs: number): string | null {
  const [body, mac] = token.split('.');
  if (!body || !mac) return null;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const [pathId, expires] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof pathId !== 'string' || typeof expires !== 'number' || expires * 1000 < nowMs) return null;
    return pathId;
  } catch {
    return null;
  }
}
