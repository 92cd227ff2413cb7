// Message retention: a message older than its retention period is deleted as a deletion by hand
// would delete it (delete_message to those who had it, its uploads' owners told). A channel keeps
// messages for its message_retention_days, or, when that is null, for the organization's, which
// direct messages keep too; -1 (the default) keeps them forever.
//
// The organization's sweep runs a minute after it loads and then an hour after the last one
// ended, by the app's clock. It lists the expired messages conversation by conversation, oldest
// first, and each conversation's owner deletes its own (sent-deletion.ts), in batches.
import { Alarm } from '../alarm.js';
import { sentBefore } from '../../store/message-edits.js';
import type { RealmHandle } from '../realm/actor.js';
import type { RealmState } from '../realm/state.js';
import { deletePlaced } from './sent-deletion.js';

const DAY_MS = 86_400_000;
export const FIRST_SWEEP_DELAY_MS = 60_000;
export const SWEEP_INTERVAL_MS = 3_600_000;
/** Messages listed at a time. */
const LISTING = 1_000;

/** Where messages expire, and the moment before which they have: channels by id, the direct messages as null. */
export function retentionCutoffs(state: RealmState, nowMs: number): Array<{ readonly channelId: number | null; readonly beforeMs: number }> {
  const organization = state.realm.settings.message_retention_days;
  const out: Array<{ channelId: number | null; beforeMs: number }> = [];
  for (const c of state.channels.all()) {
    const days = c.message_retention_days ?? organization;
    if (days > 0) out.push({ channelId: c.id, beforeMs: nowMs - days * DAY_MS });
  }
  if (organization > 0) out.push({ channelId: null, beforeMs: nowMs - organization * DAY_MS });
  return out;
}

/** An organization's retention sweep and its timer. */
export class RetentionSweeper {
  private readonly alarm: Alarm;
  private stopped = false;

  constructor(private readonly realm: RealmHandle) {
    this.alarm = new Alarm(
      () => realm.services.clock.now(),
      () =>
        void this.sweep()
          .catch((err: unknown) => realm.services.log.warn({ err, realm: realm.id }, 'message retention sweep failed'))
          .finally(() => this.armIn(SWEEP_INTERVAL_MS)),
    );
  }

  /** The first sweep, a minute from now (not in the organization's first moments of serving). */
  start(): void {
    this.armIn(FIRST_SWEEP_DELAY_MS);
  }

  /** When the next sweep runs (epoch ms); null when stopped. */
  get nextSweep(): number | null {
    return this.alarm.next;
  }

  private armIn(ms: number): void {
    if (this.stopped) return;
    this.alarm.disarm();
    this.alarm.armBy(this.realm.services.clock.now() + ms);
  }

  /** Delete every message past its retention period now, `listing` at a time; returns how many were listed. */
  async sweep(listing = LISTING): Promise<number> {
    const { realm } = this;
    let listed = 0;
    for (const { channelId, beforeMs } of retentionCutoffs(realm.state, realm.services.clock.now())) {
      let oldest: number | null = null;
      for (;;) {
        const expired = await sentBefore(realm.services.db, realm.id, channelId, beforeMs, listing);
        // A listing that starts where the last one did means the last deleted nothing: that
        // should not happen (a message moved away meanwhile is no longer listed here, but where
        // it went), and the sweep moves on rather than spin.
        if (expired.length === 0 || expired[0]!.id === oldest) break;
        oldest = expired[0]!.id;
        listed += expired.length;
        await deletePlaced(realm, expired);
        if (expired.length < listing) break;
      }
    }
    return listed;
  }

  /** No more sweeps (the app is closing); one under way ends at its next failed ask. */
  stop(): void {
    this.stopped = true;
    this.alarm.disarm();
  }
}
