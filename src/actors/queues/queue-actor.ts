// One actor per event queue (`realm-7/qb-12/<queue id>`). It holds the events its client has not
// acknowledged, the parked long-poll or the WebSocket of that client, and one deadline (on the
// realm's shared timer, deadlines.ts): while a poll is parked, the next heartbeat or the end of
// the answer interval (answer-interval.ts), else the idle expiry. Handlers never await (the only
// await is the one-time restore from the log, which precedes every other message in the
// mailbox); a parked poll is its Responder, which the actor answers later (DESIGN.md §2–3).
import type { Logger } from 'pino';
import { ApiError, errors } from '../../domain/errors.js';
import { eventMatchesNarrow } from '../../domain/event-narrow.js';
import type { Capabilities } from '../../domain/client-capabilities.js';
import type { ClientView, RealmLookup } from '../../domain/events/view.js';
import type { Clock } from '../../clock.js';
import type { HangupListener, HangupSource } from '../../hangup.js';
import type { PublishedEvent } from '../event-sequencer.js';
import { dispatch, type Ref } from '../runtime.js';
import { answerDue, answerDueAt, markAnswered, NEVER, type Answered } from './answer-interval.js';
import type { Deadlines, Scheduled } from './deadlines.js';
import { wantsType, type QueueDescriptor } from './descriptor.js';
import { EventsJson, eventsFrame, PresentationCache, viewVariant, type BufferedEvent } from './presentation.js';

/** A poll's answer: the events after its cursor, and its queue's id. */
export type PollAnswer = { readonly events: EventsJson; readonly queue_id: string };

/**
 * Where a poll's one answer goes: the request's exchange itself, which waits while the poll is
 * parked (no object of the poll's own between the two). It is the request's hangup too, which the
 * queue listens to while the poll is parked.
 */
export interface Responder extends HangupSource {
  answer(out: PollAnswer | ApiError): void;
}

/** The client end of a WebSocket bound to this queue. */
export interface QueueSocket {
  /** Sends a text frame (a Buffer holds UTF-8); false when the send buffer passed its bound (it is being closed). */
  send(text: string | Buffer): boolean;
  close(code: number, reason: string): void;
}

/**
 * Why a queue actor ended. `shutdown` and `unavailable` keep the persisted queue: the first for
 * the next process, the second (its restore from the log failed, e.g. the database went down)
 * for the next request, which restores it again.
 */
export type EndReason = 'deleted' | 'expired' | 'deactivated' | 'shutdown' | 'unavailable';

export type QueueMsg =
  | { readonly kind: 'restore'; readonly load: () => Promise<PublishedEvent[]> }
  | Delivery
  | { readonly kind: 'poll'; readonly lastEventId: number; readonly dontBlock: boolean; readonly respond: Responder }
  | { readonly kind: 'abandon'; readonly respond: Responder }
  | { readonly kind: 'tick' }
  | { readonly kind: 'attach'; readonly socket: QueueSocket; readonly lastEventId: number }
  | { readonly kind: 'detach'; readonly socket: QueueSocket }
  | { readonly kind: 'ack'; readonly lastEventId: number }
  | { readonly kind: 'end'; readonly reason: EndReason; readonly done?: () => void };

/**
 * Released events for one queue: one actor message however many hand-overs add to it before the
 * actor reads it. Each message costs its actor a turn of the event loop (an immediate and a
 * context); under load most queues still had the previous hand-over's message waiting when the
 * next came. Each part keeps the presentation cache of its own hand-over, which the other queues
 * given those events share.
 */
export class Delivery {
  readonly kind = 'deliver';
  /** The part handed over after this one, joined while the message waited. */
  next: Delivery | null = null;
  /** The last part (the message's own field; each joined part's is unused). */
  private last: Delivery = this;

  constructor(
    /** Added to (add) until the actor reads the message: the hand-over fills a part as it goes. */
    readonly events: PublishedEvent[],
    readonly cache: PresentationCache,
  ) {}

  /** Add later events to this message, which its actor has not read yet. */
  join(later: Delivery): void {
    this.last.next = later;
    this.last = later;
  }

  /**
   * Add an event of the hand-over whose presentation cache is `cache` to this message, which its
   * actor has not read yet: to its last part if that is the same hand-over's (once: an event
   * addressed to a user twice, or to a user and all public channels, comes in a row), else in a
   * part of its own.
   */
  add(e: PublishedEvent, cache: PresentationCache): void {
    const last = this.last;
    if (last.cache !== cache) this.join(new Delivery([e], cache));
    else if (last.events[last.events.length - 1] !== e) last.events.push(e);
  }
}

/** What queue actors of one organization share. */
export interface QueueEnvironment {
  readonly realm: () => RealmLookup;
  readonly clock: Clock;
  /** What contact seconds count from (see contactSecond): the registry's start. */
  readonly epochMs: number;
  readonly heartbeatMs: number;
  /** The least time between two answers with events to a queue's long-polls (answer-interval.ts). */
  readonly answerIntervalMs: number;
  /** The queues' ticks, on one timer; due ones are sent a tick. */
  readonly deadlines: Deadlines<EventQueue>;
  readonly requestHeartbeat: (queue: EventQueue) => void;
  readonly ended: (queue: EventQueue, reason: EndReason) => void;
  /** Events handed to the client (metrics). */
  readonly delivered: (count: number) => void;
  readonly log: Logger;
}

const DIRTY = 1;
const HEARTBEAT_REQUESTED = 2;
/** Bits 2–4 of the flags: why the queue ended, as 1 + its index here (0 while it is alive). */
const END_REASONS: readonly EndReason[] = ['deleted', 'expired', 'deactivated', 'shutdown', 'unavailable'];
const END_SHIFT = 2;

/** The empty buffer queues share, frozen: accept gives a queue its own before the first push. */
const NO_EVENTS = Object.freeze([]) as unknown as BufferedEvent[];

/**
 * One event queue, as one object: what the realm's registry and the persistence flusher read,
 * the state of the queue's actor, and the view its events are presented for (its client's
 * capabilities and options come from the shared descriptor). As three objects (an entry, the
 * actor's state and a view) a queue cost about 150 bytes more.
 */
export class EventQueue implements ClientView, Scheduled, HangupListener, Answered {
  /** The queue's actor; set by whoever spawns it (its state is this object). */
  ref: Ref<QueueMsg> = null as unknown as Ref<QueueMsg>;
  /** Highest id the client acknowledged. */
  acked: number;
  /**
   * The last contact, in milliseconds since the registry's epoch (lastContact is the time): a
   * small integer, which V8 keeps in the field itself, for about 24 days after the epoch. A time
   * in milliseconds would be boxed (16 bytes more a queue); beyond that it is boxed, and as right.
   */
  private contactMs: number;
  /**
   * The last contact its row holds, in whole seconds (contactSecond; the row has the
   * milliseconds): a small integer, which V8 keeps in the field itself (a time in milliseconds
   * would be boxed, 16 bytes more a queue).
   */
  savedContact: number;
  /**
   * DIRTY, HEARTBEAT_REQUESTED and the end reason, read through accessors: each as a field of its
   * own cost 8 bytes more a queue.
   */
  private flags = 0;
  /** NO_EVENTS (shared) until the first event arrives: an idle queue holds no array of its own. */
  buffer: BufferedEvent[] = NO_EVENTS;
  /** Highest event id seen (delivered or skipped): later duplicates are ignored. */
  seen: number;
  /**
   * The parked poll's answer, whose client's hang-up the queue listens to. It parked at the
   * queue's last contact: the poll touched the queue, and while it waits nothing else does but an
   * acknowledgement over a socket, which is contact too.
   */
  parked: Responder | null = null;
  socket: QueueSocket | null = null;
  socketSent: number;
  /** Its place in the realm's deadlines (its next tick; a later deadline does not move it: the tick re-checks). */
  heapIndex = -1;
  /** When a long-poll was last answered with events (answer-interval.ts); NEVER before the first. */
  answered = NEVER;
  /** The delivery sent to its actor and not read yet, which later events join (see Delivery). */
  inbox: Delivery | null = null;

  constructor(
    readonly id: string,
    readonly userId: number,
    readonly descriptor: QueueDescriptor,
    readonly idleTimeoutSecs: number,
    startEventId: number,
    acked: number,
    lastContact: number,
    readonly env: QueueEnvironment,
  ) {
    this.acked = acked;
    this.contactMs = Math.round(lastContact - env.epochMs);
    this.savedContact = contactSecond(env, lastContact);
    this.seen = Math.max(startEventId, acked);
    this.socketSent = acked;
  }

  /** The last contact (epoch milliseconds): registration, a poll, an acknowledgement, a socket's coming or going. */
  get lastContact(): number {
    return this.env.epochMs + this.contactMs;
  }

  set lastContact(ms: number) {
    this.contactMs = Math.round(ms - this.env.epochMs);
  }

  /** Why the queue ended; undefined while it is alive. */
  get endReason(): EndReason | undefined {
    const n = this.flags >> END_SHIFT;
    return n === 0 ? undefined : END_REASONS[n - 1];
  }

  set endReason(reason: EndReason) {
    this.flags = (this.flags & ((1 << END_SHIFT) - 1)) | ((END_REASONS.indexOf(reason) + 1) << END_SHIFT);
  }

  get alive(): boolean {
    return this.flags >> END_SHIFT === 0;
  }

  /** acked or lastContact changed since the row was last written. */
  get dirty(): boolean {
    return (this.flags & DIRTY) !== 0;
  }

  set dirty(on: boolean) {
    this.flags = on ? this.flags | DIRTY : this.flags & ~DIRTY;
  }

  /** A heartbeat was asked for the parked poll and has not come through yet. */
  get heartbeatRequested(): boolean {
    return (this.flags & HEARTBEAT_REQUESTED) !== 0;
  }

  set heartbeatRequested(on: boolean) {
    this.flags = on ? this.flags | HEARTBEAT_REQUESTED : this.flags & ~HEARTBEAT_REQUESTED;
  }

  /** The parked poll's client went away (the queue listens while it is parked: no object per poll). */
  hungUp(): void {
    if (this.parked) dispatch(this.ref, { kind: 'abandon', respond: this.parked });
  }

  // The view (ClientView), from the descriptor: nothing of it is kept per queue.
  get queueId(): string {
    return this.id;
  }

  get capabilities(): Capabilities {
    return this.descriptor.capabilities;
  }

  get applyMarkdown(): boolean {
    return this.descriptor.applyMarkdown;
  }

  get clientExtavatar(): boolean {
    return this.descriptor.clientExtavatar;
  }
}

export const badQueue = (id: string) => new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${id}`, 400, { queue_id: id });

/**
 * What a request to an ended queue is told: to retry later when the queue is kept (the server
 * is stopping, or its restore failed), else that it is gone.
 */
export function endedError(queue: EventQueue): ApiError {
  if (queue.endReason === 'unavailable') return errors.unavailable('The database');
  if (queue.endReason === 'shutdown') return errors.unavailable('The server');
  return badQueue(queue.id);
}

function closeEnded(queue: EventQueue, socket: QueueSocket): void {
  if (queue.endReason === 'unavailable') socket.close(1013, 'Try again later');
  else if (queue.endReason === 'shutdown') socket.close(1001, 'Server shutting down');
  else socket.close(4001, 'BAD_EVENT_QUEUE_ID');
}

/**
 * Synchronous except for the restore (a promise, which the runtime awaits): the patched nact
 * finishes a message whose handler returns a state without a promise and its microtasks.
 */
export function queueActor(q: EventQueue, msg: QueueMsg): EventQueue | Promise<EventQueue> {
  // Read now: events released from here on need a message of their own.
  if (msg === q.inbox) q.inbox = null;
  if (!q.alive) {
    if (msg.kind === 'poll') msg.respond.answer(endedError(q));
    if (msg.kind === 'attach') closeEnded(q, msg.socket);
    if (msg.kind === 'end') msg.done?.();
    return q;
  }
  switch (msg.kind) {
    case 'restore':
      return restore(q, msg.load);
    case 'deliver':
      accept(q, msg);
      break;
    case 'poll':
      poll(q, msg.lastEventId, msg.dontBlock, msg.respond);
      break;
    case 'abandon':
      // The client went away: settle its request (the answer goes nowhere) and keep the events.
      if (q.parked === msg.respond) {
        takeParked(q);
        touch(q);
        answerEvents(q, msg.respond, NO_EVENTS);
      }
      break;
    case 'tick':
      tick(q);
      break;
    case 'attach':
      touch(q);
      acknowledge(q, msg.lastEventId);
      if (q.socket && q.socket !== msg.socket) q.socket.close(4000, 'Replaced by a newer connection');
      if (q.parked) answerParked(q);
      q.socket = msg.socket;
      q.socketSent = msg.lastEventId;
      flushSocket(q);
      break;
    case 'detach':
      if (q.socket === msg.socket) {
        q.socket = null;
        touch(q);
      }
      break;
    case 'ack':
      touch(q);
      acknowledge(q, msg.lastEventId);
      break;
    case 'end':
      end(q, msg.reason);
      msg.done?.();
      return q;
  }
  schedule(q);
  return q;
}

async function restore(q: EventQueue, load: () => Promise<PublishedEvent[]>): Promise<EventQueue> {
  try {
    accept(q, new Delivery(await load(), new PresentationCache()));
  } catch (err) {
    // Serving the queue without the events it could not read would lose them: drop it from
    // memory instead (its row stays), and let the next request restore it again.
    q.env.log.warn({ err, queue: q.id }, 'queue restore failed');
    end(q, 'unavailable');
    return q;
  }
  schedule(q);
  return q;
}

/** viewVariant of a queue's view: one per descriptor, which queues registered alike share. */
const variants = new WeakMap<QueueDescriptor, string>();
function variantOf(q: EventQueue): string {
  let v = variants.get(q.descriptor);
  if (v === undefined) variants.set(q.descriptor, (v = viewVariant(q)));
  return v;
}

/** Filter, present and buffer the events of every part; wake the parked poll or push to the socket. */
function accept(q: EventQueue, delivery: Delivery): void {
  const realm = q.env.realm();
  const variant = variantOf(q);
  let added = false;
  for (let part: Delivery | null = delivery; part !== null; part = part.next) {
    if (buffer(q, part.events, part.cache, realm, variant)) added = true;
  }
  if (!added) return;
  if (q.parked && answerDue(q)) answerParked(q);
  if (q.socket) flushSocket(q);
}

/** Buffer what the queue's client wants of these events; whether any was. */
function buffer(q: EventQueue, events: readonly PublishedEvent[], cache: PresentationCache, realm: RealmLookup, variant: string): boolean {
  const { narrow } = q.descriptor;
  const emptyTopicName = realm.realm.settings.empty_topic_display_name;
  let added = false;
  for (const e of events) {
    if (e.id <= q.seen) continue;
    q.seen = e.id;
    if (e.type === 'heartbeat') q.heartbeatRequested = false;
    if (!wantsType(q.descriptor, e.type)) continue;
    for (const p of cache.present(e, q, variant, realm)) {
      if (!eventMatchesNarrow(narrow, p.event, emptyTopicName)) continue;
      if (q.buffer === NO_EVENTS) q.buffer = [];
      q.buffer.push(p.buffered);
      added = true;
    }
  }
  return added;
}

function poll(q: EventQueue, lastEventId: number, dontBlock: boolean, respond: Responder): void {
  touch(q);
  acknowledge(q, lastEventId);
  if (q.parked) answerParked(q); // one parked poll per queue: the older one gets what there is
  if ((q.buffer.length > 0 && answerDue(q)) || dontBlock || respond.gone) {
    respondWith(q, respond);
    return;
  }
  q.parked = respond;
  respond.listen(q);
}

function answerParked(q: EventQueue): void {
  const respond = takeParked(q)!;
  touch(q);
  respondWith(q, respond);
}

function takeParked(q: EventQueue): Responder | null {
  const respond = q.parked;
  if (!respond) return null;
  q.parked = null;
  respond.listen(null);
  return respond;
}

function respondWith(q: EventQueue, respond: Responder): void {
  if (q.buffer.length > 0) {
    q.env.delivered(q.buffer.length);
    markAnswered(q);
  }
  answerEvents(q, respond, q.buffer.slice());
}

function answerEvents(q: EventQueue, respond: Responder, events: readonly BufferedEvent[]): void {
  respond.answer({ events: new EventsJson(events), queue_id: q.id });
}

function acknowledge(q: EventQueue, lastEventId: number): void {
  if (lastEventId > q.acked) {
    q.acked = lastEventId;
    q.dirty = true;
  }
  let drop = 0;
  while (drop < q.buffer.length && q.buffer[drop]!.id <= lastEventId) drop++;
  if (drop === 0) return; // nothing to drop (the shared empty buffer is never written)
  if (drop === q.buffer.length) q.buffer.length = 0;
  else q.buffer.splice(0, drop);
}

function flushSocket(q: EventQueue): void {
  const unsent = q.buffer.filter((e) => e.id > q.socketSent);
  if (unsent.length === 0) return;
  q.socketSent = unsent.at(-1)!.id;
  q.env.delivered(unsent.length);
  // A false return means uWS dropped the frame and closes the socket (slow consumer); the
  // events stay buffered and the client resumes from its last_event_id.
  q.socket!.send(eventsFrame(unsent));
}

function touch(q: EventQueue): void {
  q.lastContact = q.env.clock.now();
  q.dirty = true;
}

/** A contact time as whole seconds since the registry's epoch (earlier ones, restored from rows, are negative). */
export function contactSecond(env: Pick<QueueEnvironment, 'epochMs'>, ms: number): number {
  return Math.floor((ms - env.epochMs) / 1000);
}

function tick(q: EventQueue): void {
  const now = q.env.clock.now();
  if (q.parked) {
    if (q.buffer.length > 0 && answerDue(q, now)) {
      answerParked(q);
      return;
    }
    if (!q.heartbeatRequested && now - q.lastContact >= q.env.heartbeatMs * 0.9) {
      q.heartbeatRequested = true;
      q.env.requestHeartbeat(q);
    }
    return;
  }
  if (q.socket) return;
  if (now - q.lastContact >= q.idleTimeoutSecs * 1000) end(q, 'expired');
}

/**
 * One deadline per queue: while a poll is parked, the end of the answer interval if events wait
 * for it (answer-interval.ts), else the next heartbeat; else the idle expiry. A deadline
 * already set for an earlier moment is kept (its tick re-checks and sets the next), so the common
 * state changes of a busy queue cost no work on the realm's deadlines. The registry arms a new
 * queue's first deadline itself, before its actor has a message: a message to do it cost a
 * scheduled turn per queue (10,000 of them when a restart restores 10,000 queues).
 */
export function schedule(q: EventQueue): void {
  if (!q.alive) return;
  const now = q.env.clock.now();
  let at: number;
  if (q.parked && q.buffer.length > 0) {
    at = answerDueAt(q, now); // events wait for the answer interval (answer-interval.ts)
  } else if (q.parked) {
    const jitter = 0.9 + Math.random() * 0.2;
    at = q.heartbeatRequested ? now + q.env.heartbeatMs : q.lastContact + q.env.heartbeatMs * jitter;
  } else if (q.socket) {
    return; // an open socket keeps the queue alive; uWS pings it
  } else {
    at = q.lastContact + q.idleTimeoutSecs * 1000;
  }
  q.env.deadlines.setEarliest(q, at);
}

function end(q: EventQueue, reason: EndReason): void {
  q.endReason = reason;
  q.env.deadlines.delete(q);
  const respond = takeParked(q);
  // On shutdown the client is told nothing went wrong and re-polls the restarted server.
  if (respond && reason === 'shutdown') answerEvents(q, respond, q.buffer.slice());
  else if (respond) respond.answer(endedError(q));
  if (q.socket) {
    closeEnded(q, q.socket);
    q.socket = null;
  }
  q.buffer = NO_EVENTS;
  q.env.ended(q, reason);
}
