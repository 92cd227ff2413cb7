// Which URLs a message may link to, and which of them point at uploaded files.
//
// Only http, https and mailto links, and links without a scheme (relative to the server), are
// allowed. Anything that looks like it has a scheme but is not one of those is refused, even
// when a browser would not treat it as one: refusing `java%09script:` costs nothing, guessing
// wrong about a browser's URL parser costs an XSS.

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);
const UPLOADS_PREFIX = '/user_uploads/';
const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

export function isAllowedLinkUrl(url: string): boolean {
  // Browsers drop leading C0 controls and spaces before looking for a scheme.
  const trimmed = url.replace(/^[\u0000-\u0020]+/, '');
  const scheme = SCHEME.exec(trimmed);
  if (scheme) return ALLOWED_SCHEMES.has(scheme[1]!.toLowerCase());
  // A colon before the first '/', '?' or '#' would be read as a scheme by some parser.
  const firstDelimiter = trimmed.search(/[/?#]/);
  const colon = trimmed.indexOf(':');
  return colon === -1 || (firstDelimiter !== -1 && firstDelimiter < colon);
}

function pathOf(url: string): string | null {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  const m = /^(?:https?:)?\/\/[^/?#]*(\/[^?#]*)?/i.exec(url);
  return m ? (m[1] ?? '') : null;
}

/**
 * The upload's path id (`2/ab/xyz/file.png`) if the URL points at `/user_uploads/` on any host
 * or relative to this server; null otherwise. Percent-escapes are decoded, since path ids are
 * stored as plain text and links carry them escaped.
 */
export function uploadPathIdOf(url: string): string | null {
  const path = pathOf(url.split(/[?#]/, 1)[0]!);
  if (path === null || !path.startsWith(UPLOADS_PREFIX)) return null;
  const raw = path.slice(UPLOADS_PREFIX.length);
  if (raw === '') return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A relative link to an uploaded image on this server, which gets an inline preview. */
export function isLocalUploadImage(url: string): boolean {
  if (!url.startsWith(UPLOADS_PREFIX)) return false;
  const path = url.split(/[?#]/, 1)[0]!;
  const dot = path.lastIndexOf('.');
  return dot !== -1 && IMAGE_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}

/** The last path segment, decoded: a readable name for an uploaded file. */
export function fileNameOf(url: string): string {
  const path = url.split(/[?#]/, 1)[0]!;
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
