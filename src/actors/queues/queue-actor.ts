// One actor per event queue (`realm-7/qb-12/<queue id>`). It holds the events its client has not
// acknowledged, the parked long-poll or the WebSocket of that client, and one deadline (on the
// realm's shared timer, deadlines.ts): while a poll is parked, the next heartbeat or the end of
// the answer interval (answer-interval.ts), else the idle expiry. Handlers never await (the only
// await is the one-time restore from the log, which precedes every other message in the
// mailbox); a parked poll is its Responder, which the actor answers later (DESIGN.md §2–3).
// The actor's state, and the messages it reads, are in event-queue.ts; here is what it does.
import { ApiError, errors } from '../../domain/errors.js';
import { eventMatchesNarrow } from '../../domain/event-narrow.js';
import type { RealmLookup } from '../../domain/events/view.js';
import type { PublishedEvent } from '../event-sequencer.js';
import { answerDue, answerDueAt, markAnswered } from './answer-interval.js';
import { wantsType, type QueueDescriptor } from './descriptor.js';
import { Delivery, NO_EVENTS, type EndReason, type EventQueue, type QueueMsg, type QueueSocket, type Responder } from './event-queue.js';
import { EventsJson, eventsFrame, PresentationCache, viewVariant, type BufferedEvent } from './presentation.js';
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
