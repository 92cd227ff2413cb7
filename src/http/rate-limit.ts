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

/** What a response's rate headers (and a refusal's Retry-After) tell. */
export interface RateDecision {
  readonly limit: number;
  readonly remaining: number;
  /** Epoch seconds at which the bucket is full again. */
  readonly resetAt: number;
  /** Seconds until one more request is allowed (0 while one is). */
  readonly retryAfter: number;
}

/**
 * One key's tokens as of `at`. A request keeps its bucket, not a decision of its own, until it is
 * answered: the bucket is the limiter's already, and a parked long-poll kept 64 bytes of decision
 * (default settings limit every user). The decision is read when the answer is sent, so a poll
 * answered a minute later reports the tokens it finds then.
 */
export class TokenBucket {
  constructor(
    readonly limiter: TokenBucketLimiter,
    public tokens: number,
    /**
     * When `tokens` was counted, in milliseconds since the limiter's start: a small integer, which
     * V8 keeps in the field (a time in milliseconds since 1970 is boxed, 16 bytes more a key).
     */
    public at: number,
  ) {}

  /** The bucket now, refilled since its last take (nothing is taken). */
  decision(): RateDecision {
    return this.limiter.decide(this);
  }
}

/** A request over its limit: the bucket that had no token for it. */
export class Refused {
  constructor(readonly bucket: TokenBucket) {}
}

/**
 * Token buckets per key: `limit` requests per `windowMs`, refilled continuously. Two numbers per
 * key, so a million users cost a few tens of MiB at most; idle full buckets are swept.
 */
export class TokenBucketLimiter {
  /** By key: a user's id, a client's address. */
  private readonly buckets = new Map<string | number, TokenBucket>();
  private readonly perMs: number;
  /** What the buckets' times count from. */
  private readonly epochMs: number;
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {
    this.perMs = limit / windowMs;
    this.epochMs = clock.now();
  }

  /** Take one token if there is one: the key's bucket, or, when it had none, its refusal. */
  take(key: string | number): TokenBucket | Refused {
    const now = this.clock.now() - this.epochMs;
    let b = this.buckets.get(key);
    if (b === undefined) this.buckets.set(key, (b = new TokenBucket(this, this.limit, now)));
    b.tokens = this.refilled(b, now);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.sweep(now); // after the take: a full bucket is swept, and this one is not full now
    return allowed ? b : new Refused(b);
  }

  /** A bucket as its headers tell it now (TokenBucket.decision). */
  decide(b: TokenBucket): RateDecision {
    const now = this.clock.now() - this.epochMs;
    const tokens = this.refilled(b, now);
    return {
      limit: this.limit,
      remaining: Math.floor(tokens),
      resetAt: Math.ceil((this.epochMs + now + (this.limit - tokens) / this.perMs) / 1000),
      retryAfter: tokens >= 1 ? 0 : (1 - tokens) / this.perMs / 1000,
    };
  }

  private refilled(b: TokenBucket, now: number): number {
    return Math.min(this.limit, b.tokens + (now - b.at) * this.perMs);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) if (this.refilled(b, now) >= this.limit) this.buckets.delete(key);
  }
}
