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

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Epoch seconds at which the bucket is full again. */
  readonly resetAt: number;
  /** Seconds until one more request is allowed (when refused). */
  readonly retryAfter: number;
}

/**
 * Token buckets per key: `limit` requests per `windowMs`, refilled continuously. Two numbers per
 * key, so a million users cost a few tens of MiB at most; idle full buckets are swept.
 */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {
    this.perMs = limit / windowMs;
  }

  /** Take one token if there is one. */
  take(key: string): RateDecision {
    const now = this.clock.now();
    const b = this.buckets.get(key) ?? { tokens: this.limit, at: now };
    b.tokens = Math.min(this.limit, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.buckets.set(key, b);
    this.sweep(now);
    return {
      allowed,
      limit: this.limit,
      remaining: Math.floor(b.tokens),
      resetAt: Math.ceil((now + (this.limit - b.tokens) / this.perMs) / 1000),
      retryAfter: allowed ? 0 : (1 - b.tokens) / this.perMs / 1000,
    };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) if (b.tokens + (now - b.at) * this.perMs >= this.limit) this.buckets.delete(key);
  }
}
