// One event queue as data: what the realm's registry and the persistence flusher read, and the
// state its actor (queue-actor.ts) changes; the messages the actor reads (QueueMsg, among them
// Delivery, the released events), and what a parked poll or a WebSocket is to the queue.
import type { Logger } from 'pino';
import type { ApiError } from '../../domain/errors.js';
import type { Capabilities } from '../../domain/client-capabilities.js';
import type { ClientView, RealmLookup } from '../../domain/events/view.js';
import type { Clock } from '../../clock.js';
import type { HangupListener, HangupSource } from '../../hangup.js';
import type { PublishedEvent } from '../event-sequencer.js';
import { dispatch, logAndResume, SelfActor, type Ref } from '../runtime.js';
import { NEVER, type Answered } from './answer-interval.js';
import type { Deadlines, Scheduled } from './deadlines.js';
import type { QueueDescriptor } from './descriptor.js';
import type { EventsJson, PresentationCache, BufferedEvent } from './presentation.js';
// Called only once a message comes, when both modules have loaded: the cycle is harmless.
import { queueActor } from './queue-actor.js';

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
const UNLISTED = 4;
/** Bits 3–5 of the flags: why the queue ended, as 1 + its index here (0 while it is alive). */
const END_REASONS: readonly EndReason[] = ['deleted', 'expired', 'deactivated', 'shutdown', 'unavailable'];
const END_SHIFT = 3;

/** The empty buffer queues share, frozen: accept gives a queue its own before the first push. */
export const NO_EVENTS = Object.freeze([]) as unknown as BufferedEvent[];

/**
 * One event queue, as one object: its actor (nact's, whose state is the queue itself), what the
 * realm's registry and the persistence flusher read, the state its handler (queue-actor.ts)
 * changes, and the view its events are presented for (its client's capabilities and options come
 * from the shared descriptor). As four objects (an actor, an entry, the actor's state and a view)
 * a queue cost about 230 bytes more.
 */
export class EventQueue extends SelfActor implements ClientView, Scheduled, HangupListener, Answered {
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
   * DIRTY, HEARTBEAT_REQUESTED, UNLISTED and the end reason, read through accessors: each as a
   * field of its own cost 8 bytes more a queue.
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

  /**
   * Spawned under `parent` (a bucket of the realm's queues) and named by its id, or by its id and
   * a suffix (`<id>.1`) while the stale actor of a queue of that id still stops.
   */
  constructor(
    parent: Ref<never>,
    name: string,
    readonly userId: number,
    readonly descriptor: QueueDescriptor,
    readonly idleTimeoutSecs: number,
    startEventId: number,
    acked: number,
    lastContact: number,
    readonly env: QueueEnvironment,
  ) {
    super(parent, name);
    this.acked = acked;
    this.contactMs = Math.round(lastContact - env.epochMs);
    this.savedContact = contactSecond(env, lastContact);
    this.seen = Math.max(startEventId, acked);
    this.socketSent = acked;
  }

  /** The queue's id: its actor's name without a suffix (queue ids are UUIDs, which have no dot). */
  get id(): string {
    const dot = this.name.indexOf('.');
    return dot < 0 ? this.name : this.name.slice(0, dot);
  }

  /** nact's handler of the actor's messages. */
  f(q: EventQueue, msg: QueueMsg): EventQueue | Promise<EventQueue> {
    return queueActor(q, msg);
  }

  /** nact's supervision policy: a bug is logged and the queue goes on with its next message. */
  onCrash(msg: unknown, err: unknown, ctx: { resume: symbol; path: { toString(): string } }): symbol {
    return logAndResume(this.env.log, msg, err, ctx);
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

  /** Its registry lists it (the registry's mark, taken off when the queue ends or its creation fails). */
  get listed(): boolean {
    return (this.flags & UNLISTED) === 0;
  }

  set listed(on: boolean) {
    this.flags = on ? this.flags & ~UNLISTED : this.flags | UNLISTED;
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
    if (this.parked) dispatch<QueueMsg>(this, { kind: 'abandon', respond: this.parked });
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

/** A contact time as whole seconds since the registry's epoch (earlier ones, restored from rows, are negative). */
export function contactSecond(env: Pick<QueueEnvironment, 'epochMs'>, ms: number): number {
  return Math.floor((ms - env.epochMs) / 1000);
}
