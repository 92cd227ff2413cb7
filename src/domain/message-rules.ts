// Message content rules: how sent and edited content is normalised, /me messages, and the ids
// clients use to group messages (recipient_id) and name the organization (sender_realm_str).
import { errors } from './errors.js';

export const MAX_MESSAGE_LENGTH = 10_000;
const TRUNCATION_NOTICE = '\n[message truncated]';

/** The last second Postgres and clients agree on (9999-12-31T23:59:59Z): the latest a stored time may be. */
export const LAST_TIMESTAMP = 253_402_300_799;

/**
 * Content as stored: trailing whitespace removed, never empty, no NUL, at most
 * MAX_MESSAGE_LENGTH code points (longer content is cut and says so, as the reference does).
 */
export function normalizeContent(raw: string): string {
  const content = raw.replace(/\r\n?/g, '\n').trimEnd();
  if (content === '') throw errors.messageEmpty();
  if (content.includes('\u0000')) throw errors.messageNullBytes();
  const chars = [...content];
  if (chars.length <= MAX_MESSAGE_LENGTH) return content;
  return chars.slice(0, MAX_MESSAGE_LENGTH - TRUNCATION_NOTICE.length).join('') + TRUNCATION_NOTICE;
}

/** Content of an edit: an edit to nothing leaves "(deleted)". */
export function normalizeEditedContent(raw: string): string {
  return raw.trimEnd() === '' ? '(deleted)' : normalizeContent(raw);
}

/** A `/me` status message: the source starts with "/me " and it rendered as such. */
export function isMeMessage(content: string, html: string): boolean {
  return content.startsWith('/me ') && html.startsWith('<p>/me ');
}

function fnv32(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * recipient_id: a channel's id for its messages; for a direct-message conversation a number
 * derived from its participants, above every channel id, so the two kinds never collide.
 */
export function recipientIdOf(channelId: number | null, dmKey: string | null): number {
  if (channelId !== null) return channelId;
  return 2 ** 31 + fnv32(dmKey ?? '');
}

/** The organization's short name in messages: the first label of its host. */
export function senderRealmStr(host: string): string {
  return host.replace(/:\d+$/, '').split('.')[0] ?? host;
}

/** Users a wildcard mention may reach before it needs can_mention_many_users_group. */
export const WILDCARD_MENTION_THRESHOLD = 15;
