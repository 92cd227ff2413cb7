// Messages between the harness and its load-generator processes (node IPC, JSON).
import type { HttpRequest } from './http-connection.js';

/** Closed loop: each connection sends its requests in turn, next as soon as the previous answers. */
export interface LoopJob {
  readonly op: 'loop';
  readonly port: number;
  readonly host: string;
  /** One list per connection, cycled. */
  readonly connections: ReadonlyArray<readonly HttpRequest[]>;
  readonly durationMs: number;
  /**
   * Requests may carry `{LAST}` in their body: replaced by `field` of the previous response to the
   * same request (initially `initial`; kept from one loop to the next until a reset), the way a
   * polling client echoes the id it last saw.
   */
  readonly chain?: { readonly field: string; readonly initial: string } | undefined;
}

export interface LoopResult {
  readonly count: number;
  readonly errors: number;
  readonly firstError: string | null;
  /** Milliseconds per request, every one. */
  readonly latencies: number[];
  /** Successful answers by the request's index in its connection's list. */
  readonly byIndex: number[];
}

/**
 * Parked clients: each keeps one request outstanding; when it is answered the answer is recorded
 * and the next request sent at once. `events` clients long-poll `GET /events` (the path holds
 * `{LAST}`, replaced by the highest event id seen); `plain` clients repeat their request; `ws`
 * clients hold an events WebSocket and acknowledge what they get.
 */
export interface ParkClient {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly last: number;
}

export interface ParkJob {
  readonly op: 'park';
  readonly port: number;
  readonly host: string;
  readonly mode: 'events' | 'plain' | 'ws';
  readonly clients: readonly ParkClient[];
  /** Answers carrying an event of this type count as deliveries (others, e.g. heartbeats, do not). */
  readonly countType?: string | undefined;
}

/** Each request once, over `connections` keep-alive connections; answers reduced to `fields`. */
export interface OnceJob {
  readonly op: 'once';
  readonly port: number;
  readonly host: string;
  readonly requests: readonly HttpRequest[];
  readonly connections: number;
  /** Top-level fields of each JSON answer to return; `events` is returned as the list of event types. */
  readonly fields: readonly string[];
}

export interface OnceResult {
  /** Per request, in order: its status and picked fields. */
  readonly answers: Array<{ readonly status: number; readonly fields: Record<string, unknown> }>;
  /** When the last answer arrived (now()). */
  readonly lastAt: number;
}

export type Command =
  | { readonly op: 'init'; readonly localAddress: string }
  | LoopJob
  | OnceJob
  | ParkJob
  /** Report the deliveries since the last collect, and forget them. */
  | { readonly op: 'collect' }
  /** Close every connection, forget deliveries, keep running. */
  | { readonly op: 'reset' }
  | { readonly op: 'close' };

export interface Deliveries {
  /** Arrival time of each delivery (ms, performance.timeOrigin-based, comparable across processes). */
  readonly times: number[];
  /** Events of the park's countType received (keyed by that type). */
  readonly events: Record<string, number>;
  readonly errors: number;
  readonly firstError: string | null;
}

export type Reply =
  | { readonly op: 'ready' }
  | { readonly op: 'progress'; readonly of: 'requests' | 'deliveries'; readonly count: number }
  | { readonly op: 'loop-done'; readonly result: LoopResult }
  | { readonly op: 'once-done'; readonly result: OnceResult }
  | { readonly op: 'parked'; readonly connected: number; readonly failed: number; readonly firstError: string | null }
  | { readonly op: 'collected'; readonly deliveries: Deliveries }
  | { readonly op: 'reset-done' }
  | { readonly op: 'closed' };

/** A wall-clock time in ms with sub-millisecond resolution, comparable between processes. */
export const now = (): number => performance.timeOrigin + performance.now();
