// The event queues of one organization: the fan-out from released events to queue actors, queue
// creation, lazy restore after a restart, and the timers of its rows' writes and sweeps (the
// writes themselves are QueueRows').
// Queue actors live under hashed bucket parents (`realm-7/qb-12/<queue id>`) so no actor has more
// than a few hundred children (DESIGN.md §3).
import { randomUUID } from 'node:crypto';
import type { RealmHandle } from '../realm/actor.js';
import type { PublishedEvent } from '../event-sequencer.js';
import { bucketOf, childNamed, childrenOf, dispatch, spawnActor, stopActor, type Ref } from '../runtime.js';
import { eventsAfter, eventsForQueue, type LoggedEventRow } from '../../store/events.js';
import * as store from '../../store/queues.js';
import { errors } from '../../domain/errors.js';
import { Deadlines } from './deadlines.js';
import { parseDescriptor, sharedDescriptor, type QueueDescriptor } from './descriptor.js';
import { PresentationCache } from './presentation.js';
import { Delivery, EventQueue, type EndReason, type QueueEnvironment, type QueueMsg, type QueueSocket, type Responder } from './event-queue.js';
import { endedError, schedule } from './queue-actor.js';
import { QueueRows } from './queue-rows.js';

const toPublished = (r: LoggedEventRow): PublishedEvent => ({
  id: r.id,
  type: r.type,
  payload: r.payload,
  userIds: r.user_ids,
  perUser: (r.per_user ?? undefined) as PublishedEvent['perUser'],
  publicChannelId: r.public_channel_id,
  spanIds: r.span_ids ?? undefined,
  persisted: true,
});

/** An ended queue's actor stays this long to answer late messages with BAD_EVENT_QUEUE_ID. */
const TOMBSTONE_MS = 30_000;

export class RealmQueues {
  /**
   * Queues listed (registered and not ended). By id, a queue is found as its actor, under its
   * name in its bucket (see named): a map of its own cost every queue an entry more.
   */
  private listedCount = 0;
  /** Ids of listed queues whose actors have another name (restored while a stale actor of the id still stops). */
  private readonly renamed = new Map<string, string>();
  /**
   * A user's queues: the queue itself while there is one (most users have one), an array beyond
   * (an array for one queue cost 56 bytes more, and a Set per user five times more).
   */
  private readonly byUser = new Map<number, EventQueue | EventQueue[]>();
  private readonly allPublic = new Set<EventQueue>();
  private readonly restoring = new Map<string, Promise<EventQueue | null>>();
  /**
   * While restoreAll reads the log: events released meanwhile (above the watermark it reads up
   * to), delivered after the log's so that no queue passes them first.
   */
  private heldLive: Array<readonly PublishedEvent[]> | null = null;
  /**
   * Events released since the last hand-over to the queues. Releases are coalesced over one turn
   * of the event loop: under load a queue gets one message for many events instead of one each
   * (each actor message costs a setImmediate, a context and a promise).
   */
  private released: Array<readonly PublishedEvent[]> = [];
  private handOverScheduled: NodeJS.Immediate | null = null;
  /** Ended queues whose actors still answer late messages: never restored from their rows. */
  private readonly tombstones = new Set<string>();
  private readonly buckets = new Map<number, Ref<never>>();
  private readonly env: QueueEnvironment;
  private readonly rows: QueueRows;
  private flushTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;

  constructor(private readonly realm: RealmHandle) {
    const { services } = realm;
    this.env = {
      realm: () => realm.state,
      clock: services.clock,
      epochMs: services.clock.now(),
      heartbeatMs: services.config.queues.heartbeatMs,
      answerIntervalMs: services.config.queues.answerIntervalMs,
      deadlines: new Deadlines<EventQueue>(
        () => services.clock.now(),
        (q) => dispatch<QueueMsg>(q, { kind: 'tick' }),
      ),
      requestHeartbeat: (q) => void realm.events.publishEphemeral([{ type: 'heartbeat', payload: {}, userIds: [], queueId: q.id }]),
      ended: (q, reason) => this.ended(q, reason),
      delivered: (n) => services.metrics?.eventsDelivered.inc(n),
      log: services.log,
    };
    realm.events.subscribe((events) => this.deliver(events));
    realm.userDeactivationHooks.push((userId) => this.closeUser(userId));
    this.rows = new QueueRows(services, realm.id, this.env, () => this.listed());
    this.flushTimer = setInterval(() => void this.flush(), services.config.queues.flushIntervalMs);
    this.flushTimer.unref();
    this.sweepTimer = setInterval(() => void this.sweep(), 60_000);
    this.sweepTimer.unref();
  }

  get size(): number {
    return this.listedCount;
  }

  /** The listed queue of this id. */
  private named(id: string): EventQueue | undefined {
    const bucket = this.buckets.get(this.bucketNumber(id));
    if (bucket === undefined) return undefined;
    const q = childNamed(bucket, this.renamed.get(id) ?? id);
    return q instanceof EventQueue && q.listed ? q : undefined;
  }

  /** Every listed queue. */
  private *listed(): Generator<EventQueue> {
    for (const bucket of this.buckets.values()) {
      for (const q of childrenOf(bucket)) if (q instanceof EventQueue && q.listed) yield q;
    }
  }

  /** Open queues, parked polls and sockets (metrics). */
  counts(): { queues: number; parked: number; sockets: number } {
    let parked = 0;
    let sockets = 0;
    for (const q of this.listed()) {
      if (q.parked) parked++;
      if (q.socket) sockets++;
    }
    return { queues: this.listedCount, parked, sockets };
  }

  /** Released events: handed to the queues at the end of this turn of the event loop. */
  private deliver(events: readonly PublishedEvent[]): void {
    this.released.push(events);
    this.handOverScheduled ??= setImmediate(() => this.handOver());
  }

  /**
   * Hand every released event to the queues that may receive them (held back during
   * restoreAll). Called before any other message to a queue actor (tell), so that a request sees
   * every event released before it arrived, as if delivery were immediate.
   */
  private handOver(): void {
    if (this.handOverScheduled) clearImmediate(this.handOverScheduled);
    this.handOverScheduled = null;
    if (this.released.length === 0) return;
    const events = this.released.length === 1 ? this.released[0]! : this.released.flat();
    this.released = [];
    if (this.heldLive) this.heldLive.push(events);
    else this.dispatchAll(events);
  }

  /** A message to a queue actor, after every event released so far. */
  private tell(queue: EventQueue, msg: QueueMsg): void {
    this.handOver();
    dispatch<QueueMsg>(queue, msg);
  }

  /**
   * Send events to every queue that may receive them: one message per queue, or a part joined to
   * the message its actor has not read yet.
   */
  private dispatchAll(events: readonly PublishedEvent[]): void {
    const cache = new PresentationCache();
    // Each queue's message is sent at its first event and filled as the hand-over goes: an actor
    // reads its messages in a later turn of the event loop, never during this one. (A map of
    // batches, sent at the end, cost two hash-table lookups a delivery.)
    const add = (q: EventQueue, e: PublishedEvent) => {
      if (q.inbox !== null) q.inbox.add(e, cache);
      else {
        q.inbox = new Delivery([e], cache);
        dispatch<QueueMsg>(q, q.inbox);
      }
    };
    for (const e of events) {
      if (e.queueId !== undefined) {
        const q = this.named(e.queueId);
        if (q) add(q, e);
        continue;
      }
      if (e.userIds === null) {
        for (const q of this.listed()) add(q, e);
      } else {
        for (const uid of e.userIds) {
          const qs = this.byUser.get(uid);
          if (qs === undefined) continue;
          if (Array.isArray(qs)) for (const q of qs) add(q, e);
          else add(qs, e);
        }
      }
      if (e.publicChannelId !== null && e.publicChannelId !== undefined) for (const q of this.allPublic) add(q, e);
    }
  }

  /**
   * Create a queue at the realm's release watermark, registered before the caller reads any
   * state (so no event between the snapshot and the first poll is lost), and persisted.
   */
  async create(userId: number, descriptor: QueueDescriptor, idleTimeoutSecs: number): Promise<EventQueue> {
    if (this.stopping) throw errors.unavailable('The server');
    const now = this.realm.services.clock.now();
    const start = this.realm.events.releasedThrough;
    const queue = this.register({
      id: randomUUID(),
      userId,
      descriptor: sharedDescriptor(descriptor),
      idleTimeoutSecs,
      startEventId: start,
      acked: start,
      lastContact: now,
    });
    try {
      await store.insertQueue(this.realm.services.db, {
        id: queue.id,
        realmId: this.realm.id,
        userId,
        descriptor,
        startEventId: start,
        idleTimeoutSecs,
        lastContactMs: now,
      });
    } catch (e) {
      dispatch<QueueMsg>(queue, { kind: 'end', reason: 'shutdown' });
      this.unregister(queue);
      throw e;
    }
    return queue;
  }

  /** The live queue with this id, restored from Postgres if this process has not loaded it. */
  async get(id: string): Promise<EventQueue | null> {
    // Stopping: the queue is kept for the next process, the client retries there.
    if (this.stopping) throw errors.unavailable('The server');
    const live = this.named(id);
    if (live) return live;
    if (this.tombstones.has(id)) return null;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    let pending = this.restoring.get(id);
    if (!pending) {
      pending = this.restore(id).finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    return pending;
  }

  /**
   * At start-up: every live queue of the realm at once, from two queries (descriptors, then the
   * log after the oldest cursor up to the release watermark), so all of them answer as soon as
   * the server listens. Events released meanwhile are held back and delivered after the log's.
   */
  async restoreAll(): Promise<number> {
    const { services } = this.realm;
    const rows = await store.liveQueues(services.db, this.realm.id, services.clock.now());
    this.handOver(); // what was released before these queues exist is theirs only through the log
    const fresh = rows.filter((r) => this.named(r.id) === undefined && this.realm.state.user(r.user_id!)?.is_active);
    if (fresh.length === 0) return 0;
    for (const row of fresh) {
      this.register({
        id: row.id,
        userId: row.user_id!,
        descriptor: parseDescriptor(row.descriptor),
        idleTimeoutSecs: row.idle_timeout_secs,
        startEventId: row.start_event_id,
        acked: row.acked_event_id,
        lastContact: row.last_contact,
      });
    }
    // Each queue skips what it already acknowledged (its `seen` starts at its cursor).
    const oldest = store.logCursor(fresh);
    this.heldLive = [];
    try {
      const logged = await eventsAfter(services.db, this.realm.id, oldest, this.realm.events.releasedThrough);
      this.dispatchAll(logged.map(toPublished));
    } finally {
      const held = this.heldLive;
      this.heldLive = null;
      for (const events of held ?? []) this.dispatchAll(events);
    }
    return fresh.length;
  }

  private async restore(id: string): Promise<EventQueue | null> {
    const { services } = this.realm;
    const row = await store.findQueue(services.db, this.realm.id, id);
    if (!row || row.user_id === null) return null;
    const live = this.named(id);
    if (live) return live;
    if (this.tombstones.has(id)) return null; // ended while its row was being read
    const user = this.realm.state.user(row.user_id);
    const now = services.clock.now();
    if (!user?.is_active || row.last_contact + row.idle_timeout_secs * 1000 < now) {
      await store.deleteQueues(services.db, [id]);
      return null;
    }
    const descriptor = parseDescriptor(row.descriptor);
    const queue = this.register({
      id,
      userId: row.user_id,
      descriptor,
      idleTimeoutSecs: row.idle_timeout_secs,
      startEventId: row.start_event_id,
      acked: row.acked_event_id,
      lastContact: row.last_contact,
    });
    // Registered first, then loaded up to the watermark of the moment: what is released later
    // arrives live, after the load in the mailbox.
    const range = { afterId: Math.max(row.start_event_id, row.acked_event_id), upTo: this.realm.events.releasedThrough };
    dispatch<QueueMsg>(queue, {
      kind: 'restore',
      load: async () =>
        (await eventsForQueue(services.db, this.realm.id, queue.userId, range, descriptor.allPublicStreams)).map(toPublished),
    });
    return queue;
  }

  private register(
    q: Pick<EventQueue, 'id' | 'userId' | 'descriptor' | 'idleTimeoutSecs' | 'acked' | 'lastContact'> & { readonly startEventId: number },
  ): EventQueue {
    // The id itself names the actor (its path holds that string, not a copy), unless the stale
    // actor of a queue of this id still stops.
    const bucket = this.bucket(q.id);
    let name = q.id;
    for (let n = 1; childNamed(bucket, name) !== undefined; n++) name = `${q.id}.${n}`;
    if (name !== q.id) this.renamed.set(q.id, name);
    const queue = new EventQueue(bucket, name, q.userId, q.descriptor, q.idleTimeoutSecs, q.startEventId, q.acked, q.lastContact, this.env);
    this.listedCount++;
    const mine = this.byUser.get(queue.userId);
    if (mine === undefined) this.byUser.set(queue.userId, queue);
    else if (Array.isArray(mine)) mine.push(queue);
    else this.byUser.set(queue.userId, [mine, queue]);
    if (queue.descriptor.allPublicStreams) this.allPublic.add(queue);
    schedule(queue); // its expiry (nothing else knows the queue yet)
    return queue;
  }

  /** Which bucket holds the actor of a queue id. */
  private bucketNumber(queueId: string): number {
    return bucketOf(queueId, this.realm.services.config.queues.buckets);
  }

  /** The bucket actor of a queue id, spawned at its first queue. */
  private bucket(queueId: string): Ref<never> {
    const n = this.bucketNumber(queueId);
    let ref = this.buckets.get(n);
    if (!ref) {
      // Buckets only hold children; they never receive messages.
      ref = spawnActor<null, never>(this.realm.ref, `qb-${n}`, () => null, null, this.realm.services.log) as Ref<never>;
      this.buckets.set(n, ref);
    }
    return ref;
  }

  /** A user's queues, as a copy (ending them changes byUser). */
  private queuesOf(userId: number): EventQueue[] {
    const mine = this.byUser.get(userId);
    if (mine === undefined) return [];
    return Array.isArray(mine) ? [...mine] : [mine];
  }

  private unregister(queue: EventQueue): void {
    if (!queue.listed) return;
    queue.listed = false;
    this.listedCount--;
    if (queue.name !== queue.id) this.renamed.delete(queue.id);
    const mine = this.byUser.get(queue.userId);
    if (mine === queue) this.byUser.delete(queue.userId);
    else if (Array.isArray(mine)) {
      const at = mine.indexOf(queue);
      if (at >= 0) mine.splice(at, 1);
      if (mine.length === 1) this.byUser.set(queue.userId, mine[0]!);
    }
    this.allPublic.delete(queue);
  }

  private ended(queue: EventQueue, reason: EndReason): void {
    this.unregister(queue);
    if (reason === 'unavailable') {
      // Kept for the next request to restore again (under another actor name while this actor
      // still answers late messages): no tombstone, no deletion.
      setTimeout(() => stopActor(queue), TOMBSTONE_MS).unref();
      return;
    }
    if (reason !== 'shutdown') this.rows.ended(queue.id);
    // The row may outlive the actor's answer by a flush interval; the tombstone covers both.
    this.tombstones.add(queue.id);
    const timer = setTimeout(() => {
      stopActor(queue);
      this.tombstones.delete(queue.id);
    }, TOMBSTONE_MS);
    timer.unref();
  }

  /** GET /events: `respond` is called once, now or when an event comes (or the heartbeat is due). */
  poll(queue: EventQueue, lastEventId: number, dontBlock: boolean, respond: Responder): void {
    if (!queue.alive) respond.answer(endedError(queue));
    else this.tell(queue, { kind: 'poll', lastEventId, dontBlock, respond });
  }

  attach(queue: EventQueue, socket: QueueSocket, lastEventId: number): void {
    this.tell(queue, { kind: 'attach', socket, lastEventId });
  }

  detach(queue: EventQueue, socket: QueueSocket): void {
    this.tell(queue, { kind: 'detach', socket });
  }

  ack(queue: EventQueue, lastEventId: number): void {
    this.tell(queue, { kind: 'ack', lastEventId });
  }

  /** DELETE /events and the like. Resolves once the queue is gone. */
  async end(queue: EventQueue, reason: EndReason): Promise<void> {
    await new Promise<void>((done) => this.tell(queue, { kind: 'end', reason, done }));
    if (reason !== 'shutdown') await this.rows.deleteEnded();
  }

  /** A deactivated user loses every queue and socket at once. */
  closeUser(userId: number): void {
    for (const q of this.queuesOf(userId)) this.tell(q, { kind: 'end', reason: 'deactivated' });
    void store
      .userQueueIds(this.realm.services.db, userId)
      .then((ids) => store.deleteQueues(this.realm.services.db, ids))
      .catch((err: unknown) => this.realm.services.log.error({ err }, 'deleting queues of a deactivated user failed'));
  }

  /** A deactivated organization loses every queue and socket at once. */
  closeAll(): void {
    for (const q of [...this.listed()]) this.tell(q, { kind: 'end', reason: 'deactivated' });
    void store
      .deleteRealmQueues(this.realm.services.db, this.realm.id)
      .catch((err: unknown) => this.realm.services.log.error({ err }, 'deleting queues of a deactivated organization failed'));
  }

  /** Write the queues' rows that are due (see QueueRows.flush). */
  flush(): Promise<void> {
    return this.rows.flush();
  }

  /** Expire persisted queues nobody restored, and trim the event log. */
  sweep(): Promise<void> {
    return this.rows.sweep(this.realm.events.releasedThrough);
  }

  /** Graceful stop: parked polls are answered, sockets closed with 1001, cursors saved. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= this.stop();
    return this.stopping;
  }

  private async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const live = [...this.listed()];
    await Promise.all(live.map((q) => new Promise<void>((done) => this.tell(q, { kind: 'end', reason: 'shutdown', done }))));
    // Shutdown keeps the queues: persist where every client got to.
    await this.rows.saveAll(live);
  }
}
