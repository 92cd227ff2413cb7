// Presenting and serializing an event once per kind of client, not once per queue: a message to
// a channel of 10,000 subscribers whose clients declared the same options is presented and
// turned into JSON once, and every queue buffers the same string.
import { CAPABILITY_KEYS } from '../../domain/client-capabilities.js';
import { presentEvent } from '../../domain/events/present.js';
import type { ClientEvent, ClientView, RealmLookup } from '../../domain/events/view.js';
import type { PublishedEvent } from '../event-sequencer.js';

/** What a queue keeps: the event's id and its JSON. */
export interface BufferedEvent {
  readonly id: number;
  readonly json: string;
}

export interface Presented extends BufferedEvent {
  readonly event: ClientEvent;
}

/** Event types whose presentation depends on who looks (user access, email visibility, user settings). */
const VIEWER_DEPENDENT = new Set(['realm_user', 'subscription', 'user_status']);

/** The part of a client view that shapes every presentation (capabilities and options). */
export function viewVariant(view: ClientView): string {
  let bits = 0;
  CAPABILITY_KEYS.forEach((k, i) => {
    if (view.capabilities[k]) bits |= 1 << i;
  });
  return `${bits}:${view.applyMarkdown ? 1 : 0}${view.clientExtavatar ? 1 : 0}`;
}

/** One per delivery (a batch of released events) or per restore. */
export class PresentationCache {
  private readonly cache = new Map<PublishedEvent, Map<string, Presented[]>>();

  present(e: PublishedEvent, view: ClientView, variant: string, realm: RealmLookup): Presented[] {
    let key = variant;
    if (e.payload._local !== undefined) key += `:q${view.queueId}`;
    else if (e.perUser?.[view.userId] !== undefined || VIEWER_DEPENDENT.has(e.type)) key += `:u${view.userId}`;
    let byVariant = this.cache.get(e);
    if (!byVariant) this.cache.set(e, (byVariant = new Map()));
    let out = byVariant.get(key);
    if (!out) {
      out = presentEvent(e, { view, realm }).map((event) => ({ id: event.id, event, json: JSON.stringify(event) }));
      byVariant.set(key, out);
    }
    return out;
  }
}

/** `[e1,e2,…]` from buffered JSON. */
export const eventsJson = (events: readonly BufferedEvent[]): string => `[${events.map((e) => e.json).join(',')}]`;
