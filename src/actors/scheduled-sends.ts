// When scheduled messages and reminders are sent: one timer for the process, armed for the
// soonest unsent row in Postgres (all organizations). When it fires, every due row is handed to
// the owner of its author's personal data (conversations/scheduled.ts), which sends it or marks
// it failed. The rows are the truth: a restart finds what is due, a missed moment is caught up.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { isDatabaseUnavailable } from '../store/database.js';
import { dueScheduled, nextDue } from '../store/scheduled-messages.js';
import { Alarm } from './alarm.js';
import type { RealmHandle } from './realm/actor.js';
import type { CommonQueryMethods } from 'slonik';

/** Rows handed over at once (their sends merge where they share an owner). */
const BATCH = 50;
/** After an unexpected failure (the database away), the next try. */
export const RETRY_MS = 15_000;

export interface ScheduledSendsDeps {
  readonly db: CommonQueryMethods;
  readonly clock: Clock;
  readonly log: Logger;
  realm(id: number): Promise<RealmHandle>;
}

export class ScheduledSends {
  private readonly alarm: Alarm;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: ScheduledSendsDeps) {
    this.alarm = new Alarm(() => deps.clock.now(), () => void this.deliverDue());
  }

  /** When the next run is due (epoch ms); null when nothing waits. */
  get nextRun(): number | null {
    return this.alarm.next;
  }

  /** Arms the timer for the soonest row (at start: what came due while the server was down is sent now). */
  async start(): Promise<void> {
    const at = await nextDue(this.deps.db);
    if (at !== null) this.noteDue(at);
  }

  /** A row was scheduled (or rescheduled) for `atMs`. */
  noteDue(atMs: number): void {
    if (!this.stopped) this.alarm.armBy(atMs);
  }

  /** No more runs; resolves when the current one (if any) ends. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.alarm.disarm();
    await this.running;
  }

  /**
   * Sends everything due by now, then arms the timer for what is left. One run at a time; a call
   * during a run makes it look again when it ends. Resolves when done (tests drive their clock).
   */
  deliverDue(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.alarm.disarm();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<void> {
    const { db, clock, log } = this.deps;
    do {
      this.again = false;
      try {
        for (;;) {
          const due = await dueScheduled(db, clock.now(), BATCH);
          const outcomes = await Promise.allSettled(
            due.map(async (r) => (await this.deps.realm(r.realm_id)).conversations.askUser(r.sender_id, 'scheduled.deliver', { id: r.id })),
          );
          const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
          if (failure) throw failure.reason;
          if (due.length < BATCH) break;
        }
        const next = await nextDue(db);
        if (next !== null) this.noteDue(next);
      } catch (err) {
        if (isDatabaseUnavailable(err)) log.warn('sending scheduled messages: database unavailable; trying again');
        else log.error({ err }, 'sending scheduled messages failed; trying again');
        this.noteDue(clock.now() + RETRY_MS);
      }
    } while (this.again && !this.stopped);
  }
}
