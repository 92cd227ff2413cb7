// A queue actor's long-poll answers, driven message by message on a manual clock (its handler
// called directly: the actor, spawned under a bucket of its own, is never sent one): the answer
// interval (QUEUE_ANSWER_INTERVAL_MS) and deliveries joined or added to while they wait.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { ManualClock } from '../../src/clock.js';
import { NO_CAPABILITIES } from '../../src/domain/client-capabilities.js';
import type { ApiError } from '../../src/domain/errors.js';
import type { RealmLookup } from '../../src/domain/events/view.js';
import type { PublishedEvent } from '../../src/actors/event-sequencer.js';
import { Deadlines } from '../../src/actors/queues/deadlines.js';
import { PresentationCache, type EventsJson } from '../../src/actors/queues/presentation.js';
import { Delivery, EventQueue, type PollAnswer, type QueueEnvironment, type Responder } from '../../src/actors/queues/event-queue.js';
import { queueActor } from '../../src/actors/queues/queue-actor.js';
import { spawnActor, startRuntime, type ActorRuntime } from '../../src/actors/runtime.js';

const INTERVAL = 20;

const realm: RealmLookup = {
  realm: { host: 'chat.example.com', settings: { empty_topic_display_name: 'general chat' } },
  user: () => undefined,
  canAccessUser: () => true,
};

let runtime: ActorRuntime;
let buckets = 0;

/** A queue of user 1 that takes every event, on a manual clock that starts `sinceEpoch` ms after its registry's epoch. */
function makeQueue(interval = INTERVAL, sinceEpoch = 0): { q: EventQueue; clock: ManualClock; deadlines: Deadlines<EventQueue> } {
  const clock = new ManualClock();
  // Its clock reads -Infinity, so its timer is armed for the longest delay Node allows (unref'd,
  // it never fires here): a test reads the deadline and sends the tick itself.
  const deadlines = new Deadlines<EventQueue>(() => Number.NEGATIVE_INFINITY, () => undefined);
  const env: QueueEnvironment = {
    realm: () => realm,
    clock,
    epochMs: clock.now() - sinceEpoch,
    heartbeatMs: 60_000,
    answerIntervalMs: interval,
    deadlines,
    requestHeartbeat: () => undefined,
    ended: () => undefined,
    delivered: () => undefined,
    log: pino({ level: 'silent' }),
  };
  const descriptor = { eventTypes: null, narrow: [], allPublicStreams: false, capabilities: NO_CAPABILITIES, applyMarkdown: true, clientExtavatar: false };
  // Its own parent: each test's queue is named q1.
  const parent = spawnActor<null, never>(runtime.system, `bucket-${++buckets}`, () => null, null, env.log);
  const q = new EventQueue(parent, 'q1', 1, descriptor, 600, 0, 0, clock.now(), env);
  return { q, clock, deadlines };
}

/** A long-poll: what it was answered (the events' ids), or null while it waits. */
class Poll implements Responder {
  gone = false;
  ids: number[] | null = null;
  listen(): void {}
  answer(out: PollAnswer | ApiError): void {
    assert.is(this.ids, null, 'answered once');
    const events = (out as PollAnswer).events as EventsJson;
    const bytes = Buffer.alloc(events.byteLength);
    events.write(bytes, 0);
    this.ids = (JSON.parse(bytes.toString()) as { id: number }[]).map((e) => e.id);
  }
}

const event = (id: number): PublishedEvent => ({ id, type: 'alert_words', payload: { alert_words: [] }, userIds: [1], persisted: false });
const deliver = (q: EventQueue, ...ids: number[]) => queueActor(q, new Delivery(ids.map(event), new PresentationCache()));
function poll(q: EventQueue, lastEventId: number, dontBlock = false): Poll {
  const p = new Poll();
  queueActor(q, { kind: 'poll', lastEventId, dontBlock, respond: p });
  return p;
}

const t = suite('queue actor answers');
t.before(() => {
  runtime = startRuntime(pino({ level: 'silent' }), 5_000);
});
t.after(() => runtime.stop());

t('a quiet queue is answered at once; events within the interval wait for its end and go out together', () => {
  const { q, clock, deadlines } = makeQueue();
  const first = poll(q, 0);
  assert.is(first.ids, null, 'parked');
  deliver(q, 1);
  assert.equal(first.ids, [1]);
  const answeredAt = clock.now();

  const second = poll(q, 1);
  clock.advance(5);
  deliver(q, 2);
  deliver(q, 3);
  assert.is(second.ids, null, 'events within the interval wait');
  assert.is(deadlines.deadlineOf(q), answeredAt + INTERVAL, 'the tick is due when the interval ends');

  clock.advance(INTERVAL - 6);
  queueActor(q, { kind: 'tick' });
  assert.is(second.ids, null, 'not before the interval ends');
  clock.advance(1);
  queueActor(q, { kind: 'tick' });
  assert.equal(second.ids, [2, 3]);
});

t('a poll that finds events waiting within the interval waits for its end', () => {
  const { q, clock, deadlines } = makeQueue();
  deliver(q, 1);
  assert.equal(poll(q, 0).ids, [1], 'events already there: answered at once');
  const answeredAt = clock.now();
  deliver(q, 2); // while the client re-polls
  clock.advance(3);
  const next = poll(q, 1);
  assert.is(next.ids, null);
  assert.is(deadlines.deadlineOf(q), answeredAt + INTERVAL);
  clock.advance(INTERVAL);
  queueActor(q, { kind: 'tick' });
  assert.equal(next.ids, [2]);
});

t('once the interval has passed, events go out at once again', () => {
  const { q, clock } = makeQueue();
  deliver(q, 1);
  assert.equal(poll(q, 0).ids, [1]);
  clock.advance(INTERVAL);
  const next = poll(q, 1);
  deliver(q, 2);
  assert.equal(next.ids, [2]);
});

t('dont_block polls, and an interval of 0, are answered at once', () => {
  const paced = makeQueue();
  deliver(paced.q, 1);
  assert.equal(poll(paced.q, 0).ids, [1]);
  deliver(paced.q, 2);
  assert.equal(poll(paced.q, 1, true).ids, [2]);

  const unpaced = makeQueue(0);
  deliver(unpaced.q, 1);
  assert.equal(poll(unpaced.q, 0).ids, [1]);
  deliver(unpaced.q, 2);
  assert.equal(poll(unpaced.q, 1).ids, [2]);
});

t('a WebSocket gets each delivery at once, within the interval too', () => {
  const { q } = makeQueue();
  const frames: number[][] = [];
  const socket = {
    send: (text: string | Buffer) => frames.push((JSON.parse(text.toString()) as { events: { id: number }[] }).events.map((e) => e.id)) > 0,
    close: () => undefined,
  };
  queueActor(q, { kind: 'attach', socket, lastEventId: 0 });
  deliver(q, 1);
  deliver(q, 2);
  deliver(q, 3);
  assert.equal(frames, [[1], [2], [3]]);
});

t('the interval is measured across the wrap of the queue clock (2^30 ms after the epoch)', () => {
  const { q, clock } = makeQueue(INTERVAL, 2 ** 30 - 5);
  deliver(q, 1);
  assert.equal(poll(q, 0).ids, [1]);
  const next = poll(q, 1);
  clock.advance(INTERVAL - 1);
  deliver(q, 2);
  assert.is(next.ids, null, 'still within the interval');
  clock.advance(1);
  queueActor(q, { kind: 'tick' });
  assert.equal(next.ids, [2]);
});

t('deliveries joined while the first waits are read in order, as one answer', () => {
  const { q } = makeQueue();
  const parked = poll(q, 0);
  const message = new Delivery([event(1), event(2)], new PresentationCache());
  message.join(new Delivery([event(3)], new PresentationCache()));
  message.join(new Delivery([event(2), event(4)], new PresentationCache())); // 2 again: seen, skipped
  q.inbox = message;
  queueActor(q, message);
  assert.equal(parked.ids, [1, 2, 3, 4]);
  assert.is(q.inbox, null, 'read: later events need a message of their own');
});

t('events added while the message waits: to its last part within a hand-over, once each, and in a part of their own from the next', () => {
  const { q } = makeQueue();
  const parked = poll(q, 0);
  const first = new PresentationCache();
  const message = new Delivery([event(1)], first);
  message.add(event(2), first);
  const three = event(3);
  message.add(three, first);
  message.add(three, first); // the same event again in a row (a user's and all public channels'): once
  const second = new PresentationCache();
  message.add(event(4), second);
  message.add(event(5), second);
  assert.equal(
    message.events.map((e) => e.id),
    [1, 2, 3],
    "the first hand-over's part",
  );
  assert.equal(
    message.next?.events.map((e) => e.id),
    [4, 5],
    "the next hand-over's, with its own cache",
  );
  assert.is(message.next?.cache, second);
  q.inbox = message;
  queueActor(q, message);
  assert.equal(parked.ids, [1, 2, 3, 4, 5]);
});

t('a queue keeps its contact time to the millisecond, before its epoch too, and its end reason beside its flags', () => {
  const { q, clock } = makeQueue(INTERVAL, 5_000);
  assert.is(q.lastContact, clock.now());
  // Restored from a row: a contact before this registry's epoch, with the row's fraction.
  q.lastContact = q.env.epochMs - 90_000.4;
  assert.is(q.lastContact, q.env.epochMs - 90_000);
  q.dirty = true;
  q.heartbeatRequested = true;
  assert.is(q.alive, true);
  assert.is(q.endReason, undefined);
  for (const reason of ['deleted', 'expired', 'deactivated', 'shutdown', 'unavailable'] as const) {
    q.endReason = reason;
    assert.is(q.endReason, reason);
    assert.is(q.alive, false);
    assert.is(q.dirty, true);
    assert.is(q.heartbeatRequested, true);
  }
  q.dirty = false;
  assert.is(q.endReason, 'unavailable');
  assert.is(q.heartbeatRequested, true);
});

t.run();
