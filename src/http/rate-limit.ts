// Sliding-window counters in memory, per key (user, IP …). Memory stays bounded: a key's
// timestamps older than the window are dropped on access and idle keys are swept.
import type { Clock } from '../clock.js';

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** Seconds until the key may act again, or 0 when it is under its limit. */
  retryAfter(key: string): number {
    const now = this.clock.now();
    const times = this.live(key, now);
    if (times.length < this.limit) return 0;
    return (times[times.length - this.limit]! + this.windowMs - now) / 1000;
  }

  /** Remaining actions in the current window. */
  remaining(key: string): number {
    return Math.max(0, this.limit - this.live(key, this.clock.now()).length);
  }

  record(key: string): void {
    const now = this.clock.now();
    const times = this.live(key, now);
    times.push(now);
    this.hits.set(key, times);
    this.sweep(now);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private live(key: string, now: number): number[] {
    const times = this.hits.get(key);
    if (!times) return [];
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - this.windowMs) drop++;
    if (drop > 0) times.splice(0, drop);
    return times;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, times] of this.hits) if (times.at(-1)! <= now - this.windowMs) this.hits.delete(key);
  }
}
