// One Node timer for "wake me at the earliest of these moments": the scheduled sends of the
// process and each organization's role:fullmembers check. Times are by the app's clock (a
// test's may stand still); a moment beyond Node's longest timer wakes early and is re-armed by
// whoever the wake-up calls.

/** Node's longest timer (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_000_000;

export class Alarm {
  private timer: NodeJS.Timeout | null = null;
  private armedAt = Infinity;

  constructor(
    private readonly now: () => number,
    private readonly wake: () => void,
  ) {}

  /** When it rings next (epoch ms); null when not armed. */
  get next(): number | null {
    return this.armedAt === Infinity ? null : this.armedAt;
  }

  /** Ring at `atMs` unless already armed for an earlier moment. */
  armBy(atMs: number): void {
    if (atMs >= this.armedAt) return;
    this.disarm();
    this.armedAt = atMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedAt = Infinity;
      this.wake();
    }, Math.min(Math.max(0, atMs - this.now()), MAX_TIMER_MS));
    this.timer.unref(); // the listening socket keeps a server alive, not its alarms
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedAt = Infinity;
  }
}
