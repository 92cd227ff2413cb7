// When a queue may answer its long-poll with events (QUEUE_ANSWER_INTERVAL_MS): at most once per
// interval. Under load a client re-polls as soon as it is answered, and each answer costs the
// server an HTTP exchange (and the client one) however few events it holds; events that come
// sooner after an answer wait for the rest of the interval and go out together. A quiet queue is
// answered at once. The queue actor asks; nothing here sends or schedules.
import type { Clock } from '../../clock.js';
import { smallMoment, smallSince } from '../../small-time.js';

/** What the interval is measured against: the registry's clock, epoch and setting. */
export interface IntervalClock {
  readonly clock: Clock;
  /** The registry's start (queueMs counts from it). */
  readonly epochMs: number;
  readonly answerIntervalMs: number;
}

/** A queue as the interval sees it. */
export interface Answered {
  /** When it was last answered with events (queueMs); NEVER before the first. */
  answered: number;
  readonly env: IntervalClock;
}

/** Answered.answered before a queue's first answer with events. */
export const NEVER = -1;

/**
 * A moment as milliseconds since the registry's epoch (small-time.ts: kept in the queue's field
 * itself, and right for any two moments less than twelve days apart).
 */
function queueMs(env: IntervalClock, now: number): number {
  return smallMoment(now - env.epochMs);
}

/** Milliseconds from the queue's last answer with events to `now`; Infinity before its first. */
function sinceAnswer(q: Answered, now: number): number {
  return q.answered === NEVER ? Infinity : smallSince(q.answered, queueMs(q.env, now));
}

/** Whether the queue may answer a poll with the events it holds now. */
export function answerDue(q: Answered, now = q.env.clock.now()): boolean {
  return sinceAnswer(q, now) >= q.env.answerIntervalMs;
}

/** When answerDue turns true (epoch milliseconds; `now` if it is). */
export function answerDueAt(q: Answered, now: number): number {
  return now + Math.max(0, q.env.answerIntervalMs - sinceAnswer(q, now));
}

/** The queue answered a poll with events now. */
export function markAnswered(q: Answered, now = q.env.clock.now()): void {
  q.answered = queueMs(q.env, now);
}
