// The presence actor of one organization (`realm-<id>/presence`). Reports are applied in memory
// and answered at once; changed rows are written in batches every PRESENCE_FLUSH_INTERVAL_MS
// (so at most one write per user per interval), never on the request path. Reads are
// synchronous over the same records, which the actor replaces (never mutates).
//
// The presence sequence (`presence_last_update_id`) must never hand out an id twice, even
// after a crash that loses unwritten rows: the organization row holds a reservation made ahead
// of use (RESERVE_BLOCK ids), raised by the batch writes before it runs out, and a restart
// continues above it.
import { assertNever, type RealmHandle } from '../realm/actor.js';
import {
  applyPresenceReport,
  legacyPresence,
  legacyWebsitePresence,
  modernPresence,
  modernPresenceJson,
  PresencesJson,
  withinHistory,
  type PresenceChange,
  type PresenceRecord,
  type PresenceStatus,
} from '../../domain/presence.js';
import { presenceEvent } from '../../domain/events/presence.js';
import { loadPresence, reservedPresenceId, savePresence } from '../../store/presence.js';
import { ask, dispatch, fail, ok, reply, spawnActor, type Ref, type Reply } from '../runtime.js';
import type { UserRecord } from '../realm/state.js';

/** The answer to a report that changes nothing. */
const NOTHING_CHANGED: Promise<null> = Promise.resolve(null);

const RESERVE_BLOCK = 10_000;

type PresenceMsg =
  | { readonly kind: 'load'; readonly replyTo: Ref<Reply<null>> }
  | { readonly kind: 'report'; readonly userId: number; readonly status: PresenceStatus; readonly replyTo: Ref<Reply<null>> }
  | { readonly kind: 'flush'; readonly replyTo?: Ref<Reply<null>> }
  | { readonly kind: 'flushed'; readonly ok: boolean; readonly userIds: readonly number[]; readonly reserved: number | null };

export interface PresenceQuery {
  readonly viewerId: number;
  /** Modern entries keyed by user id, or legacy entries keyed by API email. */
  readonly format: 'modern' | 'legacy';
  /** Only entries updated after this id (the client's last presence_last_update_id). */
  readonly sinceUpdateId: number | null;
  /** Only entries seen within this many days (null: no limit). */
  readonly historyDays: number | null;
}

export interface PresenceAnswer<P = Record<string, unknown>> {
  readonly presences: P;
  readonly lastUpdateId: number;
}

/** No entries: a plain object, which the body's JSON.stringify writes faster than raw JSON. */
const NO_PRESENCES: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Which users changed, in update-id order: a poll with `last_update_id` reads only the entries
 * after it (binary search), not every record of the organization. An entry whose user has
 * changed again since is stale and skipped; the log is rebuilt when stale entries dominate.
 */
class UpdateLog {
  private userIds: number[] = [];
  private updateIds: number[] = [];

  append(userId: number, updateId: number): void {
    this.userIds.push(userId);
    this.updateIds.push(updateId);
  }

  get length(): number {
    return this.userIds.length;
  }

  /** Replace the log by one entry per record, in update-id order. */
  rebuild(records: Iterable<PresenceRecord>): void {
    const sorted = [...records].sort((a, b) => a.lastUpdateId - b.lastUpdateId);
    this.userIds = sorted.map((r) => r.userId);
    this.updateIds = sorted.map((r) => r.lastUpdateId);
  }

  /** User ids with an entry after `updateId`, each with the update id of that entry. */
  *after(updateId: number): Generator<[userId: number, updateId: number]> {
    let lo = 0;
    let hi = this.updateIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.updateIds[mid]! <= updateId) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.updateIds.length; i++) yield [this.userIds[i]!, this.updateIds[i]!];
  }
}

export class RealmPresence {
  private readonly records = new Map<number, PresenceRecord>();
  /** A record's modern entry as JSON (queryJson), made when first asked for; gone with the record. */
  private readonly modernJson = new WeakMap<PresenceRecord, string>();
  private readonly log = new UpdateLog();
  private lastUpdateId = 0;
  private reservedThrough = 0;
  private loaded = false;
  private readonly dirty = new Set<number>();
  private flushing = false;
  /** The batch being written, if any. */
  private inflight: Promise<void> | null = null;
  /** Waiting for a flush that starts after they asked (shutdown). */
  private waitingForNext: Array<Ref<Reply<null>>> = [];
  private waitingForCurrent: Array<Ref<Reply<null>>> = [];
  private readonly timer: NodeJS.Timeout;
  readonly ref: Ref<PresenceMsg>;

  constructor(private readonly realm: RealmHandle) {
    const { services } = realm;
    this.ref = spawnActor<RealmPresence, PresenceMsg>(realm.ref, 'presence', presenceActor, this, services.log);
    this.timer = setInterval(() => dispatch(this.ref, { kind: 'flush' }), services.config.presence.flushIntervalMs);
    this.timer.unref();
  }

  /**
   * Record a client's report. Resolves once the in-memory state has it (no database wait). Most
   * reports change nothing (a record moves at most once per PRESENCE_MIN_UPDATE_MS, clients
   * report more often): those are answered without a turn of the actor, whose state they only
   * read.
   */
  report(userId: number, status: PresenceStatus): Promise<null> {
    if (this.loaded && this.changeOf(userId, status, this.realm.services.clock.now()) === null) return NOTHING_CHANGED;
    return ask<PresenceMsg, null>(this.realm.services.runtime, this.ref, (replyTo) => ({ kind: 'report', userId, status, replyTo }));
  }

  /** What a report would change now; null for nothing (or for a user who shares no presence). */
  private changeOf(userId: number, status: PresenceStatus, now: number): PresenceChange | null {
    const u = this.realm.state.user(userId);
    // Invisible mode: nothing is recorded, so others see the user go offline.
    if (!u || !visible(u)) return null;
    const change = applyPresenceReport(userId, this.records.get(userId), status, now);
    return change.next ? change : null;
  }

  /** Wait until the persisted state is loaded (only the first call after start waits). */
  async ready(): Promise<void> {
    if (!this.loaded) await ask<PresenceMsg, null>(this.realm.services.runtime, this.ref, (replyTo) => ({ kind: 'load', replyTo }));
  }

  /** Write everything changed so far; resolves when it is in Postgres. */
  flush(): Promise<null> {
    return ask<PresenceMsg, null>(this.realm.services.runtime, this.ref, (replyTo) => ({ kind: 'flush', replyTo }));
  }

  /**
   * Graceful stop: no more timer, everything written. Runs outside the actor (the actor system
   * may already be stopping, and no report arrives once HTTP is closed).
   */
  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    if (!this.loaded) return;
    const { db, log } = this.realm.services;
    try {
      await this.inflight;
      const rows = [...this.dirty].map((id) => this.records.get(id)!);
      this.dirty.clear();
      await savePresence(db, this.realm.id, rows, null);
    } catch (err) {
      log.error({ err, realm: this.realm.id }, 'presence not saved at shutdown');
    }
  }

  /** Presence entries the viewer may see (call after ready()). */
  query(q: PresenceQuery): PresenceAnswer {
    const presences: Record<string, unknown> = {};
    const max = this.select(q, (r, u) => {
      if (q.format === 'modern') presences[String(u.id)] = modernPresence(r, u.date_joined);
      else presences[u.email] = legacyPresence(r, u.date_joined);
    });
    return max < 0 ? { presences: {}, lastUpdateId: q.sinceUpdateId ?? -1 } : { presences, lastUpdateId: max };
  }

  /**
   * query()'s modern entries as JSON for a response body (a presence poll's answer), each entry
   * made once per record: records are replaced, never changed, so an entry's JSON is good for as
   * long as its record is the user's.
   */
  queryJson(q: Omit<PresenceQuery, 'format'>): PresenceAnswer<PresencesJson | Readonly<Record<string, never>>> {
    const entries: string[] = [];
    const max = this.select(q, (r, u) => {
      let json = this.modernJson.get(r);
      if (json === undefined) this.modernJson.set(r, (json = modernPresenceJson(u.id, r, u.date_joined)));
      entries.push(json);
    });
    return max < 0 ? { presences: NO_PRESENCES, lastUpdateId: q.sinceUpdateId ?? -1 } : { presences: new PresencesJson(entries), lastUpdateId: max };
  }

  /** Hand each entry the viewer may see to `take`; the highest update id among them, or -1 for none. */
  private select(q: Omit<PresenceQuery, 'format'>, take: (r: PresenceRecord, u: UserRecord) => void): number {
    const state = this.realm.state;
    if (state.realm.settings.presence_disabled) return -1;
    const now = this.realm.services.clock.now();
    const limit = this.realm.services.config.presence.limitToAccessibleUsers;
    let max = -1;
    for (const r of this.changedSince(q.sinceUpdateId)) {
      const u = state.user(r.userId);
      if (!u || !visible(u)) continue;
      if (!withinHistory(r, u.date_joined, q.historyDays, now)) continue;
      if (limit && !state.canAccessUser(q.viewerId, u.id)) continue;
      take(r, u);
      if (r.lastUpdateId > max) max = r.lastUpdateId;
    }
    return max;
  }

  /** Every record, or those updated after `updateId`. */
  private *changedSince(updateId: number | null): Generator<PresenceRecord> {
    if (updateId === null) {
      yield* this.records.values();
      return;
    }
    for (const [userId, id] of this.log.after(updateId)) {
      const r = this.records.get(userId)!;
      if (r.lastUpdateId === id) yield r; // else a later entry of the same user follows
    }
  }

  /** One user's record, if the user shares presence (call after ready()). */
  recordOf(userId: number): PresenceRecord | undefined {
    const u = this.realm.state.user(userId);
    return u && visible(u) ? this.records.get(userId) : undefined;
  }

  // --- inside the actor ---

  async load(): Promise<void> {
    if (this.loaded) return;
    const db = this.realm.services.db;
    const [rows, reserved] = await Promise.all([loadPresence(db, this.realm.id), reservedPresenceId(db, this.realm.id)]);
    let last = reserved;
    for (const r of rows) {
      this.records.set(r.user_id, {
        userId: r.user_id,
        lastActive: r.last_active_ms,
        lastConnected: r.last_connected_ms,
        lastUpdateId: r.last_update_id,
      });
      last = Math.max(last, r.last_update_id);
    }
    this.log.rebuild(this.records.values());
    // Ids up to the old reservation may have been handed out and lost: start above it.
    const reserve = last + RESERVE_BLOCK;
    await savePresence(this.realm.services.db, this.realm.id, [], reserve);
    this.lastUpdateId = last;
    this.reservedThrough = reserve;
    this.loaded = true;
  }

  applyReport(userId: number, status: PresenceStatus): void {
    const now = this.realm.services.clock.now();
    const change = this.changeOf(userId, status, now);
    if (!change?.next) return;
    const state = this.realm.state;
    const u = state.user(userId)!;
    const record: PresenceRecord = { ...change.next, lastUpdateId: ++this.lastUpdateId };
    this.records.set(userId, record);
    this.log.append(userId, record.lastUpdateId);
    if (this.log.length > 2 * this.records.size + 1024) this.log.rebuild(this.records.values());
    this.dirty.add(userId);
    if (this.lastUpdateId > this.reservedThrough - RESERVE_BLOCK / 2) dispatch(this.ref, { kind: 'flush' });
    if (change.announce && !state.realm.settings.presence_disabled) this.announce(u, record, now);
  }

  private announce(u: UserRecord, r: PresenceRecord, now: number): void {
    const state = this.realm.state;
    const { eventUserLimit, limitToAccessibleUsers } = this.realm.services.config.presence;
    // Large organizations rely on polling alone (an event per arrival would reach everyone). The
    // count is kept, not walked: an arrival that made a list of every user to count them cost
    // 12 ms at 100,000 users, and a morning's arrivals would each pay it.
    if (state.activeUsers > eventUserLimit) return;
    const userIds = limitToAccessibleUsers
      ? [...state.users.values()].filter((x) => x.is_active && state.canAccessUser(x.id, u.id)).map((x) => x.id)
      : null;
    const event = presenceEvent.build(
      {
        user_id: u.id,
        email: u.email,
        server_timestamp: now / 1000,
        presence: { website: legacyWebsitePresence(r, u.date_joined) },
        presences: { [String(u.id)]: modernPresence(r, u.date_joined) },
      },
      { userIds },
    );
    void this.realm.events.publishEphemeral([event]).catch((err: unknown) => this.realm.services.log.warn({ err }, 'presence event failed'));
  }

  startFlush(replyTo?: Ref<Reply<null>>): void {
    if (replyTo) this.waitingForNext.push(replyTo);
    if (this.flushing) return;
    const userIds = [...this.dirty];
    this.dirty.clear();
    const rows = userIds.map((id) => this.records.get(id)!);
    const reserved = this.lastUpdateId > this.reservedThrough - RESERVE_BLOCK / 2 ? this.lastUpdateId + RESERVE_BLOCK : null;
    const waiters = this.waitingForNext;
    this.waitingForNext = [];
    if (!this.loaded || (rows.length === 0 && reserved === null)) {
      for (const w of waiters) reply(w, ok(null));
      return;
    }
    this.flushing = true;
    this.waitingForCurrent = waiters;
    const { db, log } = this.realm.services;
    // Not awaited: reports keep being answered while the batch is written.
    this.inflight = savePresence(db, this.realm.id, rows, reserved).then(
      () => dispatch(this.ref, { kind: 'flushed', ok: true, userIds, reserved }),
      (err: unknown) => {
        log.warn({ err, realm: this.realm.id }, 'presence flush failed; will retry');
        dispatch(this.ref, { kind: 'flushed', ok: false, userIds, reserved });
      },
    );
  }

  finishFlush(msg: Extract<PresenceMsg, { kind: 'flushed' }>): void {
    this.flushing = false;
    if (msg.ok) {
      if (msg.reserved !== null) this.reservedThrough = Math.max(this.reservedThrough, msg.reserved);
    } else {
      for (const id of msg.userIds) this.dirty.add(id);
    }
    const waiters = this.waitingForCurrent;
    this.waitingForCurrent = [];
    for (const w of waiters) reply(w, msg.ok ? ok(null) : fail(new Error('presence flush failed')));
    if (this.waitingForNext.length > 0) this.startFlush();
  }
}

/** Bots have no presence; invisible users (presence_enabled off) share none. */
const visible = (u: UserRecord) => u.is_active && !u.is_bot && u.settings.presence_enabled;

async function presenceActor(p: RealmPresence, msg: PresenceMsg): Promise<RealmPresence> {
  switch (msg.kind) {
    case 'load':
      try {
        await p.load();
        reply(msg.replyTo, ok(null));
      } catch (e) {
        reply(msg.replyTo, fail(e));
      }
      return p;
    case 'report':
      try {
        await p.load();
        p.applyReport(msg.userId, msg.status);
        reply(msg.replyTo, ok(null));
      } catch (e) {
        reply(msg.replyTo, fail(e));
      }
      return p;
    case 'flush':
      p.startFlush(msg.replyTo);
      return p;
    case 'flushed':
      p.finishFlush(msg);
      return p;
    default:
      return assertNever(msg);
  }
}
