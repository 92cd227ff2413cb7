// The queues' rows in Postgres, written by one organization's registry: due cursors and contact
// times in batches, ended queues' rows, the sweep of expired rows and the event log, and the save
// at shutdown. One write at a time (see exclusive).
import type { Services } from '../../services.js';
import * as store from '../../store/queues.js';
import { contactSecond, type EventQueue, type QueueEnvironment } from './event-queue.js';

export class QueueRows {
  /** Ended queues whose rows are still to be deleted. */
  private readonly deleted: string[] = [];
  /** Flushes so far; each is one turn of saveTurns (see flush). */
  private flushes = 0;
  private readonly saveTurns: number;
  /** The write under way (see exclusive). */
  private writing: Promise<void> | null = null;

  constructor(
    private readonly services: Services,
    private readonly realmId: number,
    private readonly env: Pick<QueueEnvironment, 'epochMs'>,
    /** The live queues of the organization, read at each write. */
    private readonly live: () => Iterable<EventQueue>,
  ) {
    const { flushIntervalMs, saveIntervalMs } = services.config.queues;
    this.saveTurns = Math.max(1, Math.round(saveIntervalMs / flushIntervalMs));
  }

  /** An ended queue: its row goes at the next write of ended rows. */
  ended(id: string): void {
    this.deleted.push(id);
  }

  /**
   * Delete the rows of ended queues now, and write nothing else: a DELETE /events costs one
   * statement however many queues are live. A failure is retried by the next flush.
   */
  deleteEnded(): Promise<void> {
    return this.exclusive(() => this.deleteEndedNow());
  }

  /**
   * Write the changed cursors and contact times that are due, delete ended queues' rows, and mark
   * the server alive (what fails is written at the next flush). A changed queue is due at its
   * turn: each flush is the next of saveTurns, and a queue's id picks its own, so every change is
   * written within the save interval, and the writes of many busy queues are spread over it
   * instead of rewriting every row each flush. A queue is due sooner once its contact moved by a
   * tenth of its idle timeout since its row's: after a crash, the row's contact decides whether
   * the queue is restored or expired. A cursor written late costs nothing but events reloaded
   * after a crash, which the client's last_event_id drops again.
   */
  flush(): Promise<void> {
    const turn = this.flushes++ % this.saveTurns;
    return this.exclusive(async () => {
      const due: EventQueue[] = [];
      const rows: Array<{ id: string; acked: number; lastContactMs: number }> = [];
      const before: number[] = [];
      for (const q of this.live()) {
        if (!q.dirty) continue;
        const contact = contactSecond(this.env, q.lastContact);
        if (saveTurn(q.id, this.saveTurns) !== turn && contact - q.savedContact < Math.floor(q.idleTimeoutSecs / 10)) continue;
        q.dirty = false;
        due.push(q);
        before.push(q.savedContact);
        q.savedContact = contact;
        rows.push({ id: q.id, acked: q.acked, lastContactMs: q.lastContact });
      }
      const { db, log, clock } = this.services;
      try {
        await store.saveCursors(db, rows);
      } catch (err) {
        // Due again at the next flush.
        due.forEach((q, i) => {
          q.dirty = true;
          q.savedContact = before[i]!;
        });
        log.warn({ err }, 'queue cursors not written');
      }
      await this.deleteEndedNow();
      await store.markAlive(db, clock.now()).catch((err: unknown) => log.warn({ err }, 'alive mark not written'));
    });
  }

  /** Expire persisted queues nobody restored, and trim the event log up to the saved cursors. */
  async sweep(releasedThrough: number): Promise<void> {
    try {
      await this.flush();
      await this.exclusive(() => this.deleteExpired());
      await store.trimEventLog(this.services.db, this.realmId, releasedThrough);
    } catch (err) {
      this.services.log.warn({ err }, 'queue sweep failed');
    }
  }

  /** At shutdown: every queue's cursor and contact, whether due or not (the queues are kept). */
  saveAll(queues: readonly EventQueue[]): Promise<void> {
    return this.exclusive(async () => {
      const { db, log, clock } = this.services;
      try {
        await store.saveCursors(db, queues.map((q) => ({ id: q.id, acked: q.acked, lastContactMs: q.lastContact })));
        await store.deleteQueues(db, this.deleted.splice(0));
        await store.markAlive(db, clock.now());
      } catch (err) {
        // The database is gone too: the queues restart from older cursors, and clients resume
        // with their last_event_id all the same (the stop goes on).
        log.warn({ err, realm: this.realmId }, 'queue cursors not saved at shutdown');
      }
    });
  }

  private async deleteEndedNow(): Promise<void> {
    const deleted = this.deleted.splice(0);
    try {
      await store.deleteQueues(this.services.db, deleted);
    } catch (err) {
      // One by one: a spread passes every id on the stack, which overflows at some 150,000.
      for (const id of deleted) this.deleted.push(id);
      this.services.log.warn({ err }, 'deleting ended queues failed');
    }
  }

  /**
   * Delete the rows whose idle time ran out, except those of live queues. A live queue's row
   * looks expired only when the contact it holds (savedContact, or up to a second later) ran out:
   * a contact not written yet, or a queue that lives on without new contact (an open socket, a
   * parked poll). Every other live queue's row has not run out, so only these few are named, not
   * every live queue (15,000 ids, 600 KB a minute). Run exclusively: a flush under way could
   * otherwise be saving a contact that this reads as saved.
   */
  private async deleteExpired(): Promise<void> {
    const now = this.services.clock.now();
    const keep: string[] = [];
    for (const q of this.live()) {
      if (this.env.epochMs + q.savedContact * 1000 + q.idleTimeoutSecs * 1000 <= now) keep.push(q.id);
    }
    await store.deleteExpiredQueues(this.services.db, this.realmId, keep, now);
  }

  /**
   * Run f when none of the writes of queue rows (a flush, the sweep's deletion, the shutdown's
   * save) is under way; those asked for meanwhile wait for it. What they wait on never rejects:
   * f's failure is its caller's alone.
   */
  private async exclusive(f: () => Promise<void>): Promise<void> {
    while (this.writing) await this.writing;
    const run = f();
    this.writing = run
      .catch(() => {})
      .finally(() => {
        this.writing = null;
      });
    return run;
  }
}

/** The flush turn whose writes include this queue's: from its id's first 32 bits (random in a UUID). */
function saveTurn(id: string, turns: number): number {
  return turns === 1 ? 0 : Number.parseInt(id.slice(0, 8), 16) % turns;
}
