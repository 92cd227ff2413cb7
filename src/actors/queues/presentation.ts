// Presenting and serializing an event once per kind of client, not once per queue: a message to
// a channel of 10,000 subscribers whose clients declared the same options is presented and
// turned into JSON once, and every queue buffers the same string.
import { CAPABILITY_KEYS } from '../../domain/client-capabilities.js';
import { serializeEvent } from '../../domain/events/serialize.js';
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

/**
 * One event's presentations in one delivery. Most events look the same to every client of a
 * variant, and most deliveries reach one variant: that first presentation is kept in fields,
 * found by comparing the variant (an interned string), with no lookup by key; the rest in a map.
 */
class EventPresentations {
  /** Whether the event looks alike to every client of a variant (no per-viewer or per-queue part). */
  readonly shared: boolean;
  firstKey: string | null = null;
  first: Presented[] = [];
  others: Map<string, Presented[]> | null = null;

  constructor(e: PublishedEvent) {
    this.shared = e.payload._local === undefined && e.perUser === undefined && !VIEWER_DEPENDENT.has(e.type);
  }
}

/** The key of a presentation of `e` for `view`: its variant, and its viewer or queue where those show. */
function presentationKey(e: PublishedEvent, view: ClientView, variant: string): string {
  if (e.payload._local !== undefined) return `${variant}:q${view.queueId}`;
  if (e.perUser?.[view.userId] !== undefined || VIEWER_DEPENDENT.has(e.type)) return `${variant}:u${view.userId}`;
  return variant;
}

/** One per delivery (a batch of released events) or per restore. */
export class PresentationCache {
  private readonly cache = new Map<PublishedEvent, EventPresentations>();

  present(e: PublishedEvent, view: ClientView, variant: string, realm: RealmLookup): Presented[] {
    let p = this.cache.get(e);
    if (p === undefined) this.cache.set(e, (p = new EventPresentations(e)));
    const key = p.shared ? variant : presentationKey(e, view, variant);
    if (key === p.firstKey) return p.first;
    let out = p.others?.get(key);
    if (out === undefined) {
      out = serializeEvent(e, { view, realm }).map(({ event, json }) => ({ event, buffered: { id: event.id, json: Buffer.from(json) } }));
      if (p.firstKey === null) {
        p.firstKey = key;
        p.first = out;
      } else (p.others ??= new Map()).set(key, out);
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
