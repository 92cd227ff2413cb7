// GET /messages in SQL: a resolved narrow becomes a WHERE clause over `messages m` joined to the
// viewer's `user_messages um`, in one of three scopes: the viewer's own history (um required),
// one channel (um optional when the viewer may read its whole history), or all public channels.
// Fragments only; nothing here concatenates strings into SQL.
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { FLAG_BITS, MENTION_BITS } from '../domain/flags.js';
import { RESOLVED_TOPIC_PREFIX } from '../domain/topic-names.js';
import { messageColumns, messageRow } from './messages.js';

/** A narrow term with names resolved to ids (by the caller, against cached state). */
export type ResolvedTerm =
  | { readonly op: 'channel'; readonly channelId: number; readonly negated: boolean }
  | { readonly op: 'topic'; readonly topic: string; readonly negated: boolean }
  | { readonly op: 'dm'; readonly dmKey: string; readonly negated: boolean }
  | { readonly op: 'dm-including'; readonly userIds: readonly number[]; readonly negated: boolean }
  | { readonly op: 'sender'; readonly userId: number; readonly negated: boolean }
  | { readonly op: 'id'; readonly id: number; readonly negated: boolean }
  | { readonly op: 'is'; readonly what: string; readonly negated: boolean }
  | { readonly op: 'has'; readonly what: string; readonly negated: boolean }
  | { readonly op: 'search'; readonly query: string; readonly negated: boolean }
  | { readonly op: 'none' };

export type SearchScope =
  | { readonly kind: 'history' }
  | { readonly kind: 'channel'; readonly channelId: number; readonly fullHistory: boolean }
  | { readonly kind: 'channels'; readonly channelIds: readonly number[] };

export interface SearchQuery {
  readonly realmId: number;
  readonly userId: number;
  readonly scope: SearchScope;
  readonly terms: readonly ResolvedTerm[];
}

const RESOLVED_LIKE = RESOLVED_TOPIC_PREFIX.replace(/[%_\\]/g, '\\$&') + '%';

function termCondition(q: SearchQuery, t: Exclude<ResolvedTerm, { op: 'none' }>): FragmentSqlToken {
  switch (t.op) {
    case 'channel':
      return sql.fragment`m.channel_id IS NOT DISTINCT FROM ${t.channelId}`;
    case 'topic':
      return sql.fragment`(m.channel_id IS NOT NULL AND lower(m.topic) = lower(${t.topic}))`;
    case 'dm':
      return sql.fragment`m.dm_key IS NOT DISTINCT FROM ${t.dmKey}`;
    case 'dm-including':
      return sql.fragment`(m.dm_key IS NOT NULL AND string_to_array(m.dm_key, ',')::int[] @> ${sql.array(t.userIds, 'int4')}::int[])`;
    case 'sender':
      return sql.fragment`m.sender_id = ${t.userId}`;
    case 'id':
      return sql.fragment`m.id = ${t.id}`;
    case 'has':
      switch (t.what) {
        case 'link':
          return sql.fragment`m.has_link`;
        case 'image':
          return sql.fragment`m.has_image`;
        case 'attachment':
          return sql.fragment`m.has_attachment`;
        default:
          return sql.fragment`EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)`;
      }
    case 'search':
      return sql.fragment`m.search_tsv @@ websearch_to_tsquery('simple', ${t.query})`;
    case 'is':
      return isCondition(q, t.what);
  }
}

function isCondition(q: SearchQuery, what: string): FragmentSqlToken {
  const flags = sql.fragment`coalesce(um.flags, ${FLAG_BITS.read})`;
  switch (what) {
    case 'dm':
      return sql.fragment`m.dm_key IS NOT NULL`;
    case 'channel':
      return sql.fragment`m.channel_id IS NOT NULL`;
    case 'starred':
      return sql.fragment`(${flags} & ${FLAG_BITS.starred}) <> 0`;
    case 'mentioned':
      return sql.fragment`(${flags} & ${MENTION_BITS}) <> 0`;
    case 'alerted':
      return sql.fragment`(${flags} & ${FLAG_BITS.has_alert_word}) <> 0`;
    case 'unread':
      return sql.fragment`(${flags} & ${FLAG_BITS.read}) = 0`;
    case 'resolved':
      return sql.fragment`(m.channel_id IS NOT NULL AND m.topic LIKE ${RESOLVED_LIKE})`;
    case 'followed':
      return sql.fragment`EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${q.userId} AND ut.channel_id = m.channel_id
        AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy = 3)`;
    default:
      // muted: a muted topic, or a topic in a muted channel that the user did not unmute or follow.
      return sql.fragment`(m.channel_id IS NOT NULL AND (
        EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${q.userId} AND ut.channel_id = m.channel_id
                AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy = 1)
        OR (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ${q.userId} AND s.channel_id = m.channel_id AND s.is_muted)
            AND NOT EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${q.userId} AND ut.channel_id = m.channel_id
                AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy IN (2, 3)))))`;
  }
}

function scopeParts(q: SearchQuery): { join: FragmentSqlToken; where: FragmentSqlToken } {
  const on = sql.fragment`um.message_id = m.id AND um.user_id = ${q.userId}`;
  switch (q.scope.kind) {
    case 'history':
      return { join: sql.fragment`JOIN user_messages um ON ${on}`, where: sql.fragment`TRUE` };
    case 'channel':
      return {
        join: q.scope.fullHistory ? sql.fragment`LEFT JOIN user_messages um ON ${on}` : sql.fragment`JOIN user_messages um ON ${on}`,
        where: sql.fragment`m.channel_id = ${q.scope.channelId}`,
      };
    case 'channels':
      return {
        join: sql.fragment`LEFT JOIN user_messages um ON ${on}`,
        where: sql.fragment`m.channel_id = ANY(${sql.array(q.scope.channelIds, 'int4')})`,
      };
  }
}

function whereClause(q: SearchQuery, extra: FragmentSqlToken): FragmentSqlToken {
  const conds: FragmentSqlToken[] = [sql.fragment`m.realm_id = ${q.realmId}`, scopeParts(q).where, extra];
  for (const t of q.terms) {
    if (t.op === 'none') {
      conds.push(sql.fragment`FALSE`);
      continue;
    }
    const c = termCondition(q, t);
    conds.push(t.negated ? sql.fragment`NOT (${c})` : c);
  }
  return sql.fragment`${sql.join(conds, sql.fragment` AND `)}`;
}

function searchText(q: SearchQuery): string | null {
  const parts = q.terms.flatMap((t) => (t.op === 'search' && !t.negated ? [t.query] : []));
  return parts.length > 0 ? parts.join(' ') : null;
}

const foundRow = messageRow.extend({
  flags: z.number().nullable(),
  match_content: z.string().nullable(),
  match_subject: z.string().nullable(),
});
export type FoundMessage = z.infer<typeof foundRow>;

const HIGHLIGHT = 'HighlightAll=true, StartSel=<mark>, StopSel=</mark>';

function selectList(q: SearchQuery): FragmentSqlToken {
  const text = searchText(q);
  if (text === null) return sql.fragment`${messageColumns}, um.flags, NULL::text AS match_content, NULL::text AS match_subject`;
  const query = sql.fragment`websearch_to_tsquery('simple', ${text})`;
  return sql.fragment`${messageColumns}, um.flags,
    ts_headline('simple', m.rendered_content, ${query}, ${HIGHLIGHT}) AS match_content,
    ts_headline('simple', replace(replace(replace(coalesce(m.topic, ''), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), ${query}, ${HIGHLIGHT}) AS match_subject`;
}

/** Matching messages before (descending) or after (ascending) an anchor id. */
export async function searchWindow(
  db: CommonQueryMethods,
  q: SearchQuery,
  direction: 'before' | 'after',
  anchor: number,
  inclusive: boolean,
  limit: number,
): Promise<FoundMessage[]> {
  if (limit <= 0) return [];
  const { join } = scopeParts(q);
  const bound =
    direction === 'before'
      ? inclusive
        ? sql.fragment`m.id <= ${anchor}`
        : sql.fragment`m.id < ${anchor}`
      : inclusive
        ? sql.fragment`m.id >= ${anchor}`
        : sql.fragment`m.id > ${anchor}`;
  const order = direction === 'before' ? sql.fragment`m.id DESC` : sql.fragment`m.id ASC`;
  const rows = await db.any(sql.type(foundRow)`
    SELECT ${selectList(q)} FROM messages m ${join}
    WHERE ${whereClause(q, bound)} ORDER BY ${order} LIMIT ${limit}`);
  return [...rows];
}

/** Matching messages among these ids. */
export async function searchIds(db: CommonQueryMethods, q: SearchQuery, ids: readonly number[]): Promise<FoundMessage[]> {
  const { join } = scopeParts(q);
  const rows = await db.any(sql.type(foundRow)`
    SELECT ${selectList(q)} FROM messages m ${join}
    WHERE ${whereClause(q, sql.fragment`m.id = ANY(${sql.array(ids, 'int8')})`)} ORDER BY m.id`);
  return [...rows];
}

/** The oldest unread message matching the narrow, if any. */
export function firstUnread(db: CommonQueryMethods, q: SearchQuery): Promise<number | null> {
  const { join } = scopeParts(q);
  return db.maybeOneFirst(sql.type(z.object({ id: z.number().nullable() }))`
    SELECT min(m.id) AS id FROM messages m ${join}
    WHERE ${whereClause(q, sql.fragment`um.flags IS NOT NULL AND (um.flags & ${FLAG_BITS.read}) = 0`)}`);
}

/** The ids of every message the viewer has a row for that matches (flags over a narrow). */
export async function matchingIds(db: CommonQueryMethods, q: SearchQuery, afterId: number, limit: number): Promise<number[]> {
  const { join } = scopeParts(q);
  const ids = await db.anyFirst(sql.type(z.object({ id: z.number() }))`
    SELECT m.id FROM messages m ${join}
    WHERE ${whereClause(q, sql.fragment`m.id > ${afterId} AND um.flags IS NOT NULL`)} ORDER BY m.id LIMIT ${limit}`);
  return [...ids];
}
