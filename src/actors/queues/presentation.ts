// Presenting and serializing an event once per kind of client, not once per queue: a message to
// a channel of 10,000 subscribers whose clients declared the same options is presented and
// turned into JSON once, and every queue buffers the same string.
import { CAPABILITY_KEYS } from '../../domain/client-capabilities.js';
import { presentEvent } from '../../domain/events/present.js';
import type { ClientEvent, ClientView, RealmLookup } from '../../domain/events/view.js';
import { RawJson } from '../../domain/raw-json.js';
import type { PublishedEvent } from '../event-sequencer.js';

/**
 * What a queue keeps: the event's id and its JSON as UTF-8. One object per event and kind of
 * client, shared by every queue that buffers it; answers are assembled from the bytes (see
 * writeEventsJson) without a JavaScript string of their whole size.
 */
export interface BufferedEvent {
  readonly id: number;
  readonly json: Buffer;
}

export interface Presented {
  readonly event: ClientEvent;
  readonly buffered: BufferedEvent;
}

/** Event types whose presentation depends on who looks (user access, email visibility, user settings). */
const VIEWER_DEPENDENT = new Set(['realm_user', 'subscription', 'user_status']);

/** The part of a client view that shapes every presentation (capabilities and options). */
export function viewVariant(view: ClientView): string {
  let bits = 0;
  CAPABILITY_KEYS.forEach((k, i) => {
    if (view.capabilities[k]) bits |= 1 << i;
  });
  const variant = `${bits}:${view.applyMarkdown ? 1 : 0}${view.clientExtavatar ? 1 : 0}`;
  // One string per variant, not one per queue (there are at most a few hundred variants).
  let shared = variants.get(variant);
  if (shared === undefined) variants.set(variant, (shared = variant));
  return shared;
}
const variants = new Map<string, string>();

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
      out = presentEvent(e, { view, realm }).map((event) => ({ event, buffered: { id: event.id, json: Buffer.from(JSON.stringify(event)) } }));
      byVariant.set(key, out);
    }
    return out;
  }
}

const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/** The size of `[e1,e2,…]` in bytes. */
function eventsJsonSize(events: readonly BufferedEvent[]): number {
  let size = 2 + Math.max(0, events.length - 1);
  for (const e of events) size += e.json.length;
  return size;
}

/**
 * Writes `[e1,e2,…]` into `out` at `at` (eventsJsonSize(events) bytes). A long-poll answer can
 * hold thousands of events: joined as strings it took two copies of its size on the JavaScript
 * heap (large objects, which bring on full collections) and an encoding pass when written; as
 * bytes each event is copied once, into the answer.
 */
function writeEventsJson(events: readonly BufferedEvent[], out: Buffer, at: number): void {
  out[at++] = OPEN;
  for (let i = 0; i < events.length; i++) {
    if (i > 0) out[at++] = COMMA;
    out.set(events[i]!.json, at);
    at += events[i]!.json.length;
  }
  out[at] = CLOSE;
}

/** A long-poll answer's events, `[e1,e2,…]`, written into the answer's body as bytes. */
export class EventsJson extends RawJson {
  readonly byteLength: number;

  constructor(private readonly events: readonly BufferedEvent[]) {
    super();
    this.byteLength = eventsJsonSize(events);
  }

  write(out: Buffer, at: number): void {
    writeEventsJson(this.events, out, at);
  }
}

const FRAME_HEAD = Buffer.from('{"events":');
const FRAME_TAIL = Buffer.from('}');

/** `{"events":[e1,e2,…]}` in one buffer: a WebSocket frame. */
export function eventsFrame(events: readonly BufferedEvent[]): Buffer {
  const size = eventsJsonSize(events);
  const out = Buffer.allocUnsafe(FRAME_HEAD.length + size + FRAME_TAIL.length);
  out.set(FRAME_HEAD, 0);
  writeEventsJson(events, out, FRAME_HEAD.length);
  out.set(FRAME_TAIL, FRAME_HEAD.length + size);
  return out;
}
