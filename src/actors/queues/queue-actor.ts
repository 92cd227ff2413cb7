// One actor per event queue (`realm-7/qb-12/<queue id>`). It holds the events its client has not
// acknowledged, the parked long-poll or the WebSocket of that client, and one deadline (on the
// realm's shared timer, deadlines.ts): the next heartbeat while a poll is parked, else the idle
// expiry. Handlers never await (the only await is the one-time restore from the log, which
// precedes every other message in the mailbox); a parked poll is a callback the actor answers
// later (DESIGN.md §2–3).
import type { Logger } from 'pino';
import { ApiError, errors } from '../../domain/errors.js';
import { eventNarrowPredicate } from '../../domain/event-narrow.js';
import type { ClientEvent, ClientView, RealmLookup } from '../../domain/events/view.js';
import type { Clock } from '../../clock.js';
import type { Hangup, HangupListener } from '../../hangup.js';
import type { PublishedEvent } from '../event-sequencer.js';
import { dispatch, type Ref } from '../runtime.js';
import type { Deadlines } from './deadlines.js';
import { wantsType, type QueueDescriptor } from './descriptor.js';
import { eventsFrame, PresentationCache, viewVariant, type BufferedEvent } from './presentation.js';

export type PollResult = { readonly events: readonly BufferedEvent[] } | { readonly error: ApiError };
/** Where a poll's one answer goes; an object, which waits while the poll is parked. */
export interface Responder {
  respond(r: PollResult): void;
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
  | { readonly kind: 'restore'; readonly load: () => Promise<readonly PublishedEvent[]> }
  | { readonly kind: 'deliver'; readonly events: readonly PublishedEvent[]; readonly cache: PresentationCache }
  | { readonly kind: 'poll'; readonly lastEventId: number; readonly dontBlock: boolean; readonly respond: Responder; readonly hangup: Hangup }
  | { readonly kind: 'abandon'; readonly respond: Responder }
  | { readonly kind: 'tick' }
  | { readonly kind: 'attach'; readonly socket: QueueSocket; readonly lastEventId: number }
  | { readonly kind: 'detach'; readonly socket: QueueSocket }
  | { readonly kind: 'ack'; readonly lastEventId: number }
  | { readonly kind: 'end'; readonly reason: EndReason; readonly done?: () => void };

/** Shared by the actor, the fan-out registry and the persistence flusher. */
export interface QueueEntry {
  readonly id: string;
  readonly realmId: number;
  readonly userId: number;
  readonly descriptor: QueueDescriptor;
  readonly idleTimeoutSecs: number;
  readonly startEventId: number;
  ref: Ref<QueueMsg>;
  /** Highest id the client acknowledged. */
  acked: number;
  lastContact: number;
  /** acked or lastContact changed since the last flush. */
  dirty: boolean;
  alive: boolean;
  /** Set when alive turns false. */
  endReason?: EndReason;
  /** For metrics: a long-poll is parked / a WebSocket is attached. */
  parked: boolean;
  socketOpen: boolean;
}

/** What queue actors of one organization share. */
export interface QueueEnvironment {
  readonly realm: () => RealmLookup;
  readonly clock: Clock;
  readonly heartbeatMs: number;
  /** The queues' ticks, on one timer; due ones are sent a tick. */
  readonly deadlines: Deadlines<QueueState>;
  readonly requestHeartbeat: (entry: QueueEntry) => void;
  readonly ended: (entry: QueueEntry, reason: EndReason) => void;
  /** Events handed to the client (metrics). */
  readonly delivered: (count: number) => void;
  readonly log: Logger;
}

/** The parked poll; it listens for its client going away itself (no closure per poll). */
class Parked implements HangupListener {
  constructor(
    private readonly ref: Ref<QueueMsg>,
    readonly respond: Responder,
    readonly since: number,
    readonly hangup: Hangup,
  ) {}

  hungUp(): void {
    dispatch(this.ref, { kind: 'abandon', respond: this.respond });
  }
}

export interface QueueState {
  readonly entry: QueueEntry;
  readonly env: QueueEnvironment;
  readonly view: ClientView;
  /** viewVariant(view): queues with the same one share presentations. */
  readonly variant: string;
  readonly narrow: ((e: ClientEvent) => boolean) | null;
  /** NO_EVENTS (shared) until the first event arrives: an idle queue holds no array of its own. */
  buffer: BufferedEvent[];
  /** Highest event id seen (delivered or skipped): later duplicates are ignored. */
  seen: number;
  parked: Parked | null;
  socket: QueueSocket | null;
  socketSent: number;
  /** When its tick is due (a later deadline does not move it: the tick re-checks); see Deadlines. */
  deadlineAt: number;
  heapIndex: number;
  heartbeatRequested: boolean;
  ended: boolean;
}

/** The empty buffer queues share, frozen: accept gives a queue its own before the first push. */
const NO_EVENTS = Object.freeze([]) as unknown as BufferedEvent[];

export function initialQueueState(entry: QueueEntry, env: QueueEnvironment): QueueState {
  const d = entry.descriptor;
  const view: ClientView = {
    queueId: entry.id,
    userId: entry.userId,
    capabilities: d.capabilities,
    applyMarkdown: d.applyMarkdown,
    clientExtavatar: d.clientExtavatar,
  };
  return {
    entry,
    env,
    view,
    variant: viewVariant(view),
    narrow: eventNarrowPredicate(d.narrow, () => env.realm().realm.settings.empty_topic_display_name),
    buffer: NO_EVENTS,
    seen: Math.max(entry.startEventId, entry.acked),
    parked: null,
    socket: null,
    socketSent: entry.acked,
    deadlineAt: 0,
    heapIndex: -1,
    heartbeatRequested: false,
    ended: false,
  };
}

export const badQueue = (id: string) => new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${id}`, 400, { queue_id: id });

/**
 * What a request to an ended queue is told: to retry later when the queue is kept (the server
 * is stopping, or its restore failed), else that it is gone.
 */
export function endedError(entry: QueueEntry): ApiError {
  if (entry.endReason === 'unavailable') return errors.unavailable('The database');
  if (entry.endReason === 'shutdown') return errors.unavailable('The server');
  return badQueue(entry.id);
}

function closeEnded(entry: QueueEntry, socket: QueueSocket): void {
  if (entry.endReason === 'unavailable') socket.close(1013, 'Try again later');
  else if (entry.endReason === 'shutdown') socket.close(1001, 'Server shutting down');
  else socket.close(4001, 'BAD_EVENT_QUEUE_ID');
}

/**
 * Synchronous except for the restore (a promise, which the runtime awaits): the patched nact
 * finishes a message whose handler returns a state without a promise and its microtasks.
 */
export function queueActor(st: QueueState, msg: QueueMsg): QueueState | Promise<QueueState> {
  if (st.ended) {
    if (msg.kind === 'poll') msg.respond.respond({ error: endedError(st.entry) });
    if (msg.kind === 'attach') closeEnded(st.entry, msg.socket);
    if (msg.kind === 'end') msg.done?.();
    return st;
  }
  switch (msg.kind) {
    case 'restore':
      return restore(st, msg.load);
    case 'deliver':
      accept(st, msg.events, msg.cache);
      break;
    case 'poll':
      poll(st, msg.lastEventId, msg.dontBlock, msg.respond, msg.hangup);
      break;
    case 'abandon':
      // The client went away: settle its request (the answer goes nowhere) and keep the events.
      if (st.parked?.respond === msg.respond) {
        takeParked(st);
        touch(st);
        msg.respond.respond({ events: [] });
      }
      break;
    case 'tick':
      tick(st);
      break;
    case 'attach':
      touch(st);
      acknowledge(st, msg.lastEventId);
      if (st.socket && st.socket !== msg.socket) st.socket.close(4000, 'Replaced by a newer connection');
      if (st.parked) answerParked(st);
      st.socket = msg.socket;
      st.entry.socketOpen = true;
      st.socketSent = msg.lastEventId;
      flushSocket(st);
      break;
    case 'detach':
      if (st.socket === msg.socket) {
        st.socket = null;
        st.entry.socketOpen = false;
        touch(st);
      }
      break;
    case 'ack':
      touch(st);
      acknowledge(st, msg.lastEventId);
      break;
    case 'end':
      end(st, msg.reason);
      msg.done?.();
      return st;
  }
  schedule(st);
  return st;
}

async function restore(st: QueueState, load: () => Promise<readonly PublishedEvent[]>): Promise<QueueState> {
  try {
    accept(st, await load(), new PresentationCache());
  } catch (err) {
    // Serving the queue without the events it could not read would lose them: drop it from
    // memory instead (its row stays), and let the next request restore it again.
    st.env.log.warn({ err, queue: st.entry.id }, 'queue restore failed');
    end(st, 'unavailable');
    return st;
  }
  schedule(st);
  return st;
}

/** Filter, present and buffer published events; wake the parked poll or push to the socket. */
function accept(st: QueueState, events: readonly PublishedEvent[], cache: PresentationCache): void {
  const realm = st.env.realm();
  let added = false;
  for (const e of events) {
    if (e.id <= st.seen) continue;
    st.seen = e.id;
    if (e.type === 'heartbeat') st.heartbeatRequested = false;
    if (!wantsType(st.entry.descriptor, e.type)) continue;
    for (const p of cache.present(e, st.view, st.variant, realm)) {
      if (st.narrow && !st.narrow(p.event)) continue;
      if (st.buffer === NO_EVENTS) st.buffer = [];
      st.buffer.push(p.buffered);
      added = true;
    }
  }
  if (!added) return;
  if (st.parked) answerParked(st);
  if (st.socket) flushSocket(st);
}

function poll(st: QueueState, lastEventId: number, dontBlock: boolean, respond: Responder, hangup: Hangup): void {
  touch(st);
  acknowledge(st, lastEventId);
  if (st.parked) answerParked(st); // one parked poll per queue: the older one gets what there is
  if (st.buffer.length > 0 || dontBlock || hangup.gone) {
    respondWith(st, respond);
    return;
  }
  const parked = new Parked(st.entry.ref, respond, st.env.clock.now(), hangup);
  hangup.listen(parked);
  st.parked = parked;
  st.entry.parked = true;
}

function answerParked(st: QueueState): void {
  const p = takeParked(st)!;
  touch(st);
  respondWith(st, p.respond);
}

function takeParked(st: QueueState): Parked | null {
  const p = st.parked;
  if (!p) return null;
  st.parked = null;
  st.entry.parked = false;
  p.hangup.listen(null);
  return p;
}

function respondWith(st: QueueState, respond: Responder): void {
  if (st.buffer.length > 0) st.env.delivered(st.buffer.length);
  respond.respond({ events: st.buffer.slice() });
}

function acknowledge(st: QueueState, lastEventId: number): void {
  if (lastEventId > st.entry.acked) {
    st.entry.acked = lastEventId;
    st.entry.dirty = true;
  }
  let drop = 0;
  while (drop < st.buffer.length && st.buffer[drop]!.id <= lastEventId) drop++;
  if (drop === 0) return; // nothing to drop (the shared empty buffer is never written)
  if (drop === st.buffer.length) st.buffer.length = 0;
  else st.buffer.splice(0, drop);
}

function flushSocket(st: QueueState): void {
  const unsent = st.buffer.filter((e) => e.id > st.socketSent);
  if (unsent.length === 0) return;
  st.socketSent = unsent.at(-1)!.id;
  st.env.delivered(unsent.length);
  // A false return means uWS dropped the frame and closes the socket (slow consumer); the
  // events stay buffered and the client resumes from its last_event_id.
  st.socket!.send(eventsFrame(unsent));
}

function touch(st: QueueState): void {
  st.entry.lastContact = st.env.clock.now();
  st.entry.dirty = true;
}

function tick(st: QueueState): void {
  const now = st.env.clock.now();
  if (st.parked) {
    if (!st.heartbeatRequested && now - st.parked.since >= st.env.heartbeatMs * 0.9) {
      st.heartbeatRequested = true;
      st.env.requestHeartbeat(st.entry);
    }
    return;
  }
  if (st.socket) return;
  if (now - st.entry.lastContact >= st.entry.idleTimeoutSecs * 1000) end(st, 'expired');
}

/**
 * One deadline per queue: the next heartbeat while parked, else the idle expiry. A deadline
 * already set for an earlier moment is kept (its tick re-checks and sets the next), so the common
 * state changes of a busy queue cost no work on the realm's deadlines.
 */
function schedule(st: QueueState): void {
  if (st.ended) return;
  const now = st.env.clock.now();
  let at: number;
  if (st.parked) {
    const jitter = 0.9 + Math.random() * 0.2;
    at = st.heartbeatRequested ? now + st.env.heartbeatMs : st.parked.since + st.env.heartbeatMs * jitter;
  } else if (st.socket) {
    return; // an open socket keeps the queue alive; uWS pings it
  } else {
    at = st.entry.lastContact + st.entry.idleTimeoutSecs * 1000;
  }
  st.env.deadlines.setEarliest(st, at);
}

function end(st: QueueState, reason: EndReason): void {
  st.ended = true;
  st.entry.alive = false;
  st.entry.endReason = reason;
  st.env.deadlines.delete(st);
  const p = takeParked(st);
  // On shutdown the client is told nothing went wrong and re-polls the restarted server.
  if (p) p.respond.respond(reason === 'shutdown' ? { events: st.buffer.slice() } : { error: endedError(st.entry) });
  if (st.socket) {
    closeEnded(st.entry, st.socket);
    st.socket = null;
    st.entry.socketOpen = false;
  }
  st.buffer = NO_EVENTS;
  st.env.ended(st.entry, reason);
}
