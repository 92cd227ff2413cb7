// What spectators — requests without credentials, in an organization with spectator access — may
// read: messages of web-public channels, asked for with a narrow that says so. Anything else is
// refused as a missing login (401 UNAUTHORIZED), as the reference server does, so an anonymous
// caller learns nothing about private channels, direct messages or messages that do not exist.
import type { RealmHandle } from '../../actors/realm/actor.js';
import { spectatorCanRead, spectatorsAllowed } from '../../actors/realm/channel-view.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { errors } from '../../domain/errors.js';
import type { Narrow, Term } from '../../domain/narrow.js';
import { messageById, type MessageRow } from '../../store/messages.js';
import type { ResolvedTerm, SearchQuery, SearchScope } from '../../store/message-search.js';
import { contentTerm } from './message-fetch.js';

/** Operators a spectator narrow may use: none of them is about one user's own messages or flags. */
const SPECTATOR_OPERATORS = new Set(['channel', 'channels', 'topic', 'sender', 'has', 'search', 'near', 'id', 'with']);

/** No account has this id: a spectator has no rows of personal data (flags, topic settings). */
const NO_USER = 0;

/**
 * A narrow is a spectator narrow when it names web-public history: `channels: web-public`, or one
 * channel (which must then be a web-public one).
 */
function isSpectatorNarrow(narrow: Narrow): boolean {
  if (narrow.some((t) => !SPECTATOR_OPERATORS.has(t.operator))) return false;
  return narrow.some((t) => !t.negated && ((t.operator === 'channels' && t.operand === 'web-public') || t.operator === 'channel'));
}

/** Senders by id or API email only: a real address must not be confirmed to an anonymous caller. */
function senderFor(realm: RealmHandle, operand: Term['operand']): UserRecord {
  const state = realm.state;
  const u = typeof operand === 'number' || /^\d+$/.test(String(operand)) ? state.user(Number(operand)) : state.userByEmail(String(operand));
  if (!u) throw errors.badNarrow(`unknown user ${String(operand)}`);
  return u;
}

/** The search of a spectator's GET /messages. Throws 401 for a narrow spectators may not use. */
export function resolveSpectatorNarrow(realm: RealmHandle, narrow: Narrow): SearchQuery {
  const state = realm.state;
  if (!spectatorsAllowed(state) || !isSpectatorNarrow(narrow)) throw errors.notLoggedIn();
  const readable = [...state.channels.all()].filter((c) => spectatorCanRead(state, c));
  let scope: SearchScope = { kind: 'channels', channelIds: readable.map((c) => c.id) };
  const terms: ResolvedTerm[] = [];
  for (const t of narrow) {
    switch (t.operator) {
      case 'channel': {
        const byId = typeof t.operand === 'number' || /^\d+$/.test(String(t.operand));
        const c = byId ? state.channels.get(Number(t.operand)) : state.channels.byName(String(t.operand));
        if (!c || !spectatorCanRead(state, c)) {
          if (t.negated) continue;
          throw errors.badNarrow('unknown web-public channel');
        }
        if (!t.negated && scope.kind === 'channels') scope = { kind: 'channel', channelId: c.id, fullHistory: true };
        terms.push({ op: 'channel', channelId: c.id, negated: t.negated });
        break;
      }
      case 'sender':
        terms.push({ op: 'sender', userId: senderFor(realm, t.operand).id, negated: t.negated });
        break;
      default: {
        // channels made the scope above; `is` never reaches here (not a spectator operator).
        const plain = contentTerm(realm, t);
        if (plain) terms.push(plain);
        break;
      }
    }
  }
  return { realmId: realm.id, userId: NO_USER, scope, terms };
}

/** A message a spectator may read (GET /messages/{id}); 401 for every other id, existing or not. */
export async function spectatorMessage(realm: RealmHandle, id: number): Promise<MessageRow> {
  if (!spectatorsAllowed(realm.state)) throw errors.notLoggedIn();
  const row = await messageById(realm.services.db, id);
  const c = row && row.realm_id === realm.id && row.channel_id !== null ? realm.state.channels.get(row.channel_id) : undefined;
  if (!row || !c || !spectatorCanRead(realm.state, c)) throw errors.notLoggedIn();
  return row;
}
