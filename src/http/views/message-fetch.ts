// Reading messages: resolving a narrow's names against the viewer's access (which channel,
// which users, how much history), fetching the window around an anchor, and shaping each
// message for the request (content, avatar, empty topic, flags, search highlights).
import { EmailVisibility } from '../../domain/user-settings.js';
import type { RealmHandle } from '../../actors/realm/actor.js';
import { dmKeyOf } from '../../actors/realm/channel-index.js';
import { canReadChannel, canReadFullHistory } from '../../actors/realm/channel-view.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { messageObject } from '../../actors/conversations/message-view.js';
import { renderData } from '../../actors/realm/markdown-context.js';
import { errors } from '../../domain/errors.js';
import { shapeMessage } from '../../domain/events/message-shape.js';
import { topicFromClient } from '../../domain/events/topics.js';
import { FLAG_BITS, flagNames } from '../../domain/flags.js';
import type { Narrow, Term } from '../../domain/narrow.js';
import { isGuest } from '../../domain/roles.js';
import { reactionsFor, type ReactionRow } from '../../store/messages.js';
import { firstUnread, searchIds, searchWindow, type FoundMessage, type ResolvedTerm, type SearchQuery, type SearchScope } from '../../store/message-search.js';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { p } from '../params.js';

export interface ShapeOptions {
  readonly applyMarkdown: boolean;
  readonly clientExtavatar: boolean;
  readonly allowEmptyTopicName: boolean;
}

function userFor(realm: RealmHandle, viewer: UserRecord, operand: string | number): UserRecord {
  const state = realm.state;
  const u = typeof operand === 'number' || /^\d+$/.test(operand) ? state.user(Number(operand)) : (state.userByEmail(operand) ?? state.userByDeliveryEmail(operand));
  if (!u || !state.canAccessUser(viewer.id, u.id)) throw errors.badNarrow(`unknown user ${String(operand)}`);
  return u;
}

function usersFor(realm: RealmHandle, viewer: UserRecord, operand: Term['operand']): UserRecord[] {
  const list = Array.isArray(operand)
    ? operand
    : typeof operand === 'number'
      ? [operand]
      : String(operand).split(',').map((s) => s.trim()).filter((s) => s !== '');
  return list.map((x) => userFor(realm, viewer, x));
}

/** The narrow's scope and filters for this viewer. Throws BAD_NARROW for what it may not see. */
export function resolveNarrow(realm: RealmHandle, viewer: UserRecord, narrow: Narrow): SearchQuery {
  const state = realm.state;
  let scope: SearchScope = { kind: 'history' };
  const terms: ResolvedTerm[] = [];
  const channelOf = (operand: Term['operand']) => {
    const c = typeof operand === 'number' || /^\d+$/.test(String(operand)) ? state.channels.get(Number(operand)) : state.channels.byName(String(operand));
    return c && canReadChannel(state, viewer, c) ? c : undefined;
  };
  for (const t of narrow) {
    switch (t.operator) {
      case 'channel': {
        const c = channelOf(t.operand);
        if (!c) {
          if (t.negated) continue;
          throw errors.badNarrow('unknown channel');
        }
        if (!t.negated && scope.kind === 'history') scope = { kind: 'channel', channelId: c.id, fullHistory: canReadFullHistory(state, viewer, c) };
        terms.push({ op: 'channel', channelId: c.id, negated: t.negated });
        break;
      }
      case 'channels': {
        if (t.negated) continue;
        const webOnly = t.operand === 'web-public' || isGuest(viewer.role);
        const ids = [...state.channels.all()].filter((c) => !c.invite_only && (!webOnly || c.is_web_public)).map((c) => c.id);
        if (scope.kind === 'history') scope = { kind: 'channels', channelIds: ids };
        break;
      }
      case 'dm': {
        const users = usersFor(realm, viewer, t.operand);
        terms.push({ op: 'dm', dmKey: dmKeyOf([viewer.id, ...users.map((u) => u.id)]), negated: t.negated });
        break;
      }
      case 'dm-including':
        terms.push({ op: 'dm-including', userIds: usersFor(realm, viewer, t.operand).map((u) => u.id), negated: t.negated });
        break;
      case 'sender':
        terms.push({ op: 'sender', userId: userFor(realm, viewer, t.operand as string | number).id, negated: t.negated });
        break;
      default: {
        const plain = contentTerm(realm, t);
        if (plain) terms.push(plain);
        break;
      }
    }
  }
  return { realmId: realm.id, userId: viewer.id, scope, terms };
}

/**
 * The terms that filter on a message's own content, the same for every viewer: topic, id, is,
 * has, search. Null for the rest (near and with position the client's view; they do not filter).
 */
export function contentTerm(realm: RealmHandle, t: Term): ResolvedTerm | null {
  switch (t.operator) {
    case 'topic':
      return { op: 'topic', topic: topicFromClient(String(t.operand), realm.state.realm.settings.empty_topic_display_name), negated: t.negated };
    case 'id':
      return { op: 'id', id: t.operand as number, negated: t.negated };
    case 'is':
    case 'has':
      return { op: t.operator, what: String(t.operand), negated: t.negated };
    case 'search':
      return { op: 'search', query: String(t.operand), negated: t.negated };
    default:
      return null;
  }
}

/** Search highlights as the reference marks them. */
/** A search's highlighted HTML as clients expect it (Postgres marks the matches with <mark>). */
export const highlight = (s: string) => s.replaceAll('<mark>', '<span class="highlight">').replaceAll('</mark>', '</span>');

/** The messages of a result, shaped for the request, in id order. */
export async function shapeFound(realm: RealmHandle, rows: readonly FoundMessage[], o: ShapeOptions): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const db = realm.services.db;
  const reactions = await reactionsFor(db, rows.map((r) => r.id));
  const data = renderData(realm.state);
  const byMessage = new Map<number, ReactionRow[]>();
  for (const r of reactions) {
    let l = byMessage.get(r.message_id);
    if (!l) byMessage.set(r.message_id, (l = []));
    l.push(r);
  }
  const state = realm.state;
  const display = o.allowEmptyTopicName ? null : state.realm.settings.empty_topic_display_name;
  return [...rows]
    .sort((a, b) => a.id - b.id)
    .map((row) => {
      const shown = shapeMessage(messageObject(state, row, byMessage.get(row.id) ?? [], data.linkifiers), {
        applyMarkdown: o.applyMarkdown,
        clientExtavatar: o.clientExtavatar,
        senderEmailVisibility: state.user(row.sender_id)?.settings.email_address_visibility ?? EmailVisibility.everyone,
        emptyTopicDisplayName: display,
      });
      shown.flags = flagNames(row.flags ?? FLAG_BITS.read | FLAG_BITS.historical);
      if (row.match_content !== null) shown.match_content = highlight(row.match_content);
      if (row.match_subject !== null) shown.match_subject = highlight(row.match_subject);
      return shown;
    });
}

/** The anchor reported for "newest": above any message id. */
export const LARGER_THAN_ANY_ID = 10_000_000_000_000_000;

export type Anchor = number | 'newest' | 'oldest' | 'first_unread';

/** `anchor`: newest, oldest, first_unread or a message id. */
export const anchorParam = () =>
  p.string().transform((s, c): Anchor => {
    if (s === 'newest' || s === 'oldest' || s === 'first_unread') return s;
    if (/^-?\d{1,16}$/.test(s)) return Math.max(0, Number(s));
    c.addIssue({ code: 'custom', message: 'Invalid anchor' });
    return z.NEVER;
  });

export interface MessageWindow {
  readonly anchor: number;
  readonly messages: FoundMessage[];
  readonly foundAnchor: boolean;
  readonly foundOldest: boolean;
  readonly foundNewest: boolean;
}

/** The matching messages around an anchor: num_before older, the anchor itself, num_after newer. */
export async function fetchWindow(
  db: CommonQueryMethods,
  query: SearchQuery,
  w: { anchor: Anchor; numBefore: number; numAfter: number; includeAnchor: boolean },
): Promise<MessageWindow> {
  const requested = w.anchor === 'first_unread' ? ((await firstUnread(db, query)) ?? 'newest') : w.anchor;
  const anchor = requested === 'newest' ? LARGER_THAN_ANY_ID : requested === 'oldest' ? 0 : requested;
  const [before, after, at] = await Promise.all([
    searchWindow(db, query, 'before', anchor, false, w.numBefore),
    searchWindow(db, query, 'after', anchor, false, w.numAfter),
    w.includeAnchor && typeof requested === 'number' ? searchIds(db, query, [anchor]) : Promise.resolve([]),
  ]);
  return {
    anchor,
    messages: [...before, ...at, ...after],
    foundAnchor: at.length > 0,
    foundOldest: requested === 'oldest' || before.length < w.numBefore,
    foundNewest: requested === 'newest' || after.length < w.numAfter,
  };
}
