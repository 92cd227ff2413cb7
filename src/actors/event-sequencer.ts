// Event ids and the order in which committed events are released to queues (DESIGN.md §2).
//
// Transactions of different actors commit in any order, so ids from a plain sequence would reach
// queues out of order. Instead each process reserves blocks of ids from the `event_id_blocks`
// sequence and hands them out synchronously, registering every reservation with its realm's
// ReleaseOrder before the transaction commits. A reservation's events are released only once
// every lower reservation of the realm has committed or aborted, so each queue sees strictly
// increasing ids, and a queue created at the realm's watermark misses nothing released later.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** What a mutation emits. Persisted events go to the log in the mutation's transaction. */
export interface EventSpec {
  readonly type: string;
  /** The event as every recipient sees it, minus `id` and the per-user fields. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Recipients; null = every user of the organization (and its unauthenticated queues). */
  readonly userIds: readonly number[] | null;
  /** Fields that differ per recipient (message flags), keyed by user id. */
  readonly perUser?: Readonly<Record<number, Readonly<Record<string, unknown>>>> | undefined;
  /** For message events of public channels: queues with all_public_streams receive them too. */
  readonly publicChannelId?: number | null | undefined;
  /**
   * How many ids the event occupies (default 1): an event that some clients receive as several
   * events (delete_message without bulk_message_deletion) reserves one id for each.
   */
  readonly span?: number | undefined;
  /** Ephemeral events for one queue only (heartbeats). */
  readonly queueId?: string | undefined;
}

export interface PublishedEvent extends EventSpec {
  /** The event's id; with a span, the last of its ids. */
  readonly id: number;
  /** With a span: the ids before `id`, in order. */
  readonly spanIds?: readonly number[] | undefined;
  readonly persisted: boolean;
}

/**
 * Give each spec its ids from a reservation made for all of them, in order. Every published event
 * is one literal of the same fields (specs come in several shapes, and spreading them took V8's
 * slow path, a few percent of a typing request).
 */
export function assignIds(specs: readonly EventSpec[], ids: readonly number[], persisted: boolean): PublishedEvent[] {
  let i = 0;
  return specs.map((s) => {
    const span = Math.max(1, s.span ?? 1);
    const last = i + span - 1;
    const spanIds = span === 1 ? undefined : ids.slice(i, last);
    i += span;
    return {
      type: s.type,
      payload: s.payload,
      userIds: s.userIds,
      perUser: s.perUser,
      publicChannelId: s.publicChannelId,
      span: s.span,
      queueId: s.queueId,
      id: ids[last]!,
      spanIds,
      persisted,
    };
  });
}

export const idsNeeded = (specs: readonly EventSpec[]): number =>
  specs.reduce((n, s) => n + Math.max(1, s.span ?? 1), 0);

const blockRow = z.object({ start: z.number(), step: z.number() });

interface Block {
  next: number;
  readonly end: number;
}

/** Called synchronously as ids are handed out, before any other reservation can be made. */
export type OnTake = (ids: readonly number[]) => void;

interface Waiter {
  readonly n: number;
  readonly conn: CommonQueryMethods;
  readonly onTake: OnTake | undefined;
  readonly resolve: (ids: number[]) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * Hands out event ids from blocks of the shared sequence; one per process. Ids only grow: a
 * block that arrives below an id already handed out (two fetches racing) is dropped, and the
 * ids of a reservation need not be consecutive.
 */
export class IdAllocator {
  private readonly blocks: Block[] = [];
  private available = 0;
  private blockSize = 1;
  private handedOut = 0;
  private poolFetch = false;
  private readonly waiters: Waiter[] = [];

  constructor(private readonly db: CommonQueryMethods) {}

  /** Fetch the first block. Returns the floor: every id this process hands out is above it. */
  async init(): Promise<number> {
    await this.fetch(this.db);
    this.handedOut = this.blocks[0]!.next - 1;
    return this.handedOut;
  }

  /**
   * Reserve n ids. Synchronous while the blocks at hand suffice, so that reservations made in
   * turn get increasing ids. `conn` fetches a block when none is at hand: inside a transaction
   * on the embedded database it is the only connection that can make progress. `onTake` runs
   * the moment the ids are handed out: a waiter's ids are handed out inside a promise callback,
   * and code resumed after `await` would run only after other microtasks, which may have
   * reserved (and registered) higher ids meanwhile.
   */
  reserve(n: number, conn: CommonQueryMethods = this.db, onTake?: OnTake): number[] | Promise<number[]> {
    if (this.waiters.length === 0 && this.available >= n) return this.take(n, onTake);
    return new Promise<number[]>((resolve, reject) => {
      this.waiters.push({ n, conn, onTake, resolve, reject });
      void this.fetch(conn).then(() => this.serveWaiters(), (e) => this.failWaiters(e));
    });
  }

  private take(n: number, onTake: OnTake | undefined): number[] {
    const ids = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const b = this.blocks[0]!;
      ids[i] = b.next++;
      if (b.next === b.end) this.blocks.shift();
    }
    this.available -= n;
    this.handedOut = ids[n - 1] ?? this.handedOut;
    onTake?.(ids);
    if (this.available < this.blockSize / 2 && !this.poolFetch) {
      this.poolFetch = true;
      void this.fetch(this.db)
        .then(() => this.serveWaiters(), () => undefined) // a failed prefetch is retried on demand
        .finally(() => (this.poolFetch = false));
    }
    return ids;
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0 && this.available >= this.waiters[0]!.n) {
      const w = this.waiters.shift()!;
      w.resolve(this.take(w.n, w.onTake));
    }
    const w = this.waiters[0];
    if (w) void this.fetch(w.conn).then(() => this.serveWaiters(), (e) => this.failWaiters(e));
  }

  private failWaiters(e: unknown): void {
    for (const w of this.waiters.splice(0)) w.reject(e);
  }

  private async fetch(conn: CommonQueryMethods): Promise<void> {
    const b = await conn.one(sql.type(blockRow)`
      SELECT nextval('event_id_blocks')::bigint AS start,
             (SELECT increment_by FROM pg_sequences WHERE sequencename = 'event_id_blocks')::bigint AS step`);
    this.blockSize = b.step;
    if (b.start <= this.handedOut) return;
    const i = this.blocks.findIndex((x) => x.next > b.start);
    this.blocks.splice(i < 0 ? this.blocks.length : i, 0, { next: b.start, end: b.start + b.step });
    this.available += b.step;
  }
}

export interface Reservation {
  readonly first: number;
  readonly count: number;
}

interface Pending {
  readonly first: number;
  state: 'inflight' | 'done' | 'aborted';
  events: PublishedEvent[];
}

/** Per-realm release in id order. */
export class ReleaseOrder {
  private readonly pending: Pending[] = [];
  private watermark: number;

  constructor(
    floor: number,
    private readonly release: (events: readonly PublishedEvent[]) => void,
  ) {
    this.watermark = floor;
  }

  /** Every event with an id at or below this has been released (or will never exist). */
  get releasedThrough(): number {
    return this.pending.length > 0 ? Math.min(this.watermark, this.pending[0]!.first - 1) : this.watermark;
  }

  /** Call synchronously as the allocator hands out `first` (IdAllocator.reserve's onTake). */
  track(first: number): Pending {
    const p: Pending = { first, state: 'inflight', events: [] };
    this.pending.push(p);
    return p;
  }

  complete(p: Pending, events: PublishedEvent[]): void {
    p.state = 'done';
    p.events = events;
    this.drain();
  }

  abort(p: Pending): void {
    p.state = 'aborted';
    this.drain();
  }

  private drain(): void {
    const out: PublishedEvent[] = [];
    while (this.pending.length > 0 && this.pending[0]!.state !== 'inflight') {
      const p = this.pending.shift()!;
      if (p.state === 'done') {
        for (const e of p.events) out.push(e);
        if (p.events.length > 0) this.watermark = Math.max(this.watermark, p.events.at(-1)!.id);
      }
    }
    if (out.length > 0) this.release(out);
  }
}

export type { Pending };
