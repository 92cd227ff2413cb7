// A realm's stream of events: reservation of ids for a mutation's events, their insertion in the
// log inside its transaction, and their release to subscribers (the queues) after commit, in id
// order. Only actors that own a write call into this.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { isDatabaseUnavailable } from '../store/database.js';
import { eventLogged, insertEvents } from '../store/events.js';
import { UNORDERED, type CommitOrder } from './commit-order.js';
import { assignIds, idsNeeded, ReleaseOrder, type EventSpec, type IdAllocator, type Pending, type PublishedEvent } from './event-sequencer.js';

export type Emit = (event: EventSpec) => void;
export type Deliver = (events: readonly PublishedEvent[]) => void;

/** How often a commit in doubt asks the log again while the database is unreachable. */
const IN_DOUBT_RETRY_MS = 200;

export class RealmEventStream {
  private readonly order: ReleaseOrder;
  private readonly subscribers: Deliver[] = [];

  constructor(
    readonly realmId: number,
    private readonly ids: IdAllocator,
    floor: number,
  ) {
    this.order = new ReleaseOrder(floor, (events) => {
      for (const s of this.subscribers) s(events);
    });
  }

  /** Everything at or below this id has been released; a new queue starts here. */
  get releasedThrough(): number {
    return this.order.releasedThrough;
  }

  subscribe(deliver: Deliver): void {
    this.subscribers.push(deliver);
  }

  /** Reserve ids for the events and write them to the log; call inside the transaction. */
  async append(tx: CommonQueryMethods, specs: readonly EventSpec[]): Promise<{ ticket: Pending; events: PublishedEvent[] }> {
    // Tracked inside the hand-out (onTake), before the ids come back.
    let ticket!: Pending;
    const reserved = this.ids.reserve(idsNeeded(specs), tx, (ids) => (ticket = this.order.track(ids[0]!)));
    const ids = Array.isArray(reserved) ? reserved : await reserved;
    const events = assignIds(specs, ids, true);
    try {
      await insertEvents(tx, this.realmId, events);
    } catch (e) {
      this.order.abort(ticket);
      throw e;
    }
    return { ticket, events };
  }

  committed(ticket: Pending, events: PublishedEvent[]): void {
    this.order.complete(ticket, events);
  }

  aborted(ticket: Pending): void {
    this.order.abort(ticket);
  }

  /**
   * The connection was lost while the transaction committed: it may or may not have. The
   * reservation stays in flight (later events wait behind it, in order) until the log, read once
   * the database answers again, tells which; committed events are then released as usual.
   */
  inDoubt(db: CommonQueryMethods, ticket: Pending, events: PublishedEvent[]): Promise<boolean> {
    return new Promise((settled) => {
      const check = () =>
        eventLogged(db, this.realmId, events[0]!.id).then(
          (committed) => {
            if (committed) this.order.complete(ticket, events);
            else this.order.abort(ticket);
            settled(committed);
          },
          (e: unknown) => {
            if (isDatabaseUnavailable(e)) {
              setTimeout(check, IN_DOUBT_RETRY_MS).unref();
              return;
            }
            // Not an outage (a bug): releasing nothing is the safe side, as for a rollback.
            this.order.abort(ticket);
            settled(false);
          },
        );
      check();
    });
  }

  /** Events that are not logged (typing): released as soon as every earlier event is. */
  async publishEphemeral(specs: readonly EventSpec[]): Promise<void> {
    if (specs.length === 0) return;
    let ticket!: Pending;
    const reserved = this.ids.reserve(idsNeeded(specs), undefined, (ids) => (ticket = this.order.track(ids[0]!)));
    const ids = Array.isArray(reserved) ? reserved : await reserved;
    this.order.complete(ticket, assignIds(specs, ids, false));
  }
}

/**
 * Run `work` in one transaction; the events it emits are logged in that transaction and
 * released to queues only after it commits. Call from the actor that owns the write. With an
 * `order` (pipelined batches, commit-order.ts), the transaction begins, its events go to the log
 * and its COMMIT is sent only once the batches it follows are that far; the order is settled once
 * it has committed (after a failure, the caller settles it).
 */
export async function writeWithEvents<T>(
  db: DatabasePool,
  stream: RealmEventStream,
  work: (tx: CommonQueryMethods, emit: Emit) => Promise<T>,
  /** Runs after commit, before the events are released (e.g. end a deactivated user's queues). */
  beforeRelease?: (result: T) => void,
  order: CommitOrder = UNORDERED,
): Promise<T> {
  const appended: { value: { ticket: Pending; events: PublishedEvent[] } | null } = { value: null };
  // Whether the handler is done ('returned': the COMMIT may have been sent), and whether the
  // transaction failed before it was (objects: the handler's closure reads and sets them).
  const progress: { handler: 'pending' | 'returned' | 'threw'; abandoned: boolean } = { handler: 'pending', abandoned: false };
  const abandon = () => new Error('The transaction failed before its handler was done'); // rolls back
  try {
    await order.wait('begun');
    const result = await db.transaction(async (tx) => {
      try {
        if (progress.abandoned) throw abandon();
        order.pass('begun');
        const specs: EventSpec[] = [];
        const r = await work(tx, (e) => specs.push(e));
        await order.wait('events');
        if (!progress.abandoned && specs.length > 0) appended.value = await stream.append(tx, specs);
        order.pass('events');
        await order.wait('commit');
        if (progress.abandoned) {
          if (appended.value) stream.aborted(appended.value.ticket);
          appended.value = null;
          throw abandon();
        }
        progress.handler = 'returned';
        return r;
      } catch (e) {
        progress.handler = 'threw';
        throw e;
      }
    });
    beforeRelease?.(result);
    if (appended.value) stream.committed(appended.value.ticket, appended.value.events);
    // Committed: every stage passed. A failed transaction leaves its order to the caller, which
    // may retry within it (send.ts) and settles it when done.
    order.settle();
    return result;
  } catch (e) {
    // The caller still fails (a 503: the client retries, with its Idempotency-Key for sends).
    if (progress.handler === 'pending') {
      // slonik fails a transaction the moment its connection reports an error, while the
      // handler runs on, or has yet to start (the error came during START TRANSACTION). The
      // handler then throws (a rollback, though the broken connection would refuse the COMMIT
      // anyway) and aborts the ids it reserved; otherwise the release order would wait for
      // them for good.
      progress.abandoned = true;
    } else if (appended.value && progress.handler === 'returned' && isDatabaseUnavailable(e)) {
      // The connection was lost during COMMIT: released only if the log shows it happened.
      void stream.inDoubt(db, appended.value.ticket, appended.value.events);
    } else if (appended.value) stream.aborted(appended.value.ticket);
    throw e;
  }
}
