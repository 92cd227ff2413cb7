// The nact actor system and the conventions every actor follows (DESIGN.md §3):
// - a request to an actor carries `replyTo`; the answer is a Reply, so expected failures travel
//   as values (`{ok:false, error}`) and only bugs throw;
// - `ask` is the one typed query with a timeout; a timeout becomes a 503 for the client;
// - no actor awaits slow work on behalf of another, and parents keep few children.
import nact from 'nact';
import type { Ref } from 'nact';
import type { Logger } from 'pino';
import { errors } from '../domain/errors.js';

export type { Ref } from 'nact';

/** A failed Reply carries an ApiError (expected) or, after a bug, whatever was thrown. */
export type Reply<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

export const ok = <T>(value: T): Reply<T> => ({ ok: true, value });
export const fail = (error: unknown): Reply<never> => ({ ok: false, error });

export interface ActorRuntime {
  readonly system: Ref<never>;
  readonly askTimeoutMs: number;
  readonly log: Logger;
  stop(): void;
}

export function startRuntime(log: Logger, askTimeoutMs: number): ActorRuntime {
  const system = nact.start();
  return {
    system,
    askTimeoutMs,
    log,
    stop: () => nact.stop(system),
  };
}

/**
 * Ask an actor and wait for its Reply; an `{ok:false}` reply is thrown as its error.
 * Never call this from inside an actor for work that can be slow (the asker would block).
 */
export async function ask<Msg, T>(
  runtime: ActorRuntime,
  ref: Ref<Msg>,
  build: (replyTo: Ref<Reply<T>>) => Msg,
  timeoutMs = runtime.askTimeoutMs,
): Promise<T> {
  let reply: Reply<T>;
  try {
    reply = (await nact.query(ref, build as (r: Ref<unknown>) => Msg, timeoutMs)) as Reply<T>;
  } catch (e) {
    if (e instanceof Error && /Query Timeout/.test(e.message)) {
      runtime.log.warn({ actor: String((ref as { path?: unknown }).path ?? '?') }, 'actor ask timed out');
      throw errors.unavailable('The server');
    }
    throw e;
  }
  if (!reply.ok) throw reply.error;
  return reply.value;
}

/** Send a reply; safe when the asker already gave up. */
export function reply<T>(to: Ref<Reply<T>>, r: Reply<T>): void {
  nact.dispatch(to, r);
}

export const dispatch = <T>(ref: Ref<T>, msg: T): void => nact.dispatch(ref, msg);
export const stopActor = (ref: Ref<unknown>): void => nact.stop(ref);

type CrashPolicy = (msg: unknown, err: unknown, ctx: { resume: symbol; path: { toString(): string } }) => symbol;

/** One policy per logger, shared by its actors (thousands of queue actors each held a closure). */
const crashPolicies = new WeakMap<Logger, CrashPolicy>();

function crashPolicy(log: Logger): CrashPolicy {
  let policy = crashPolicies.get(log);
  if (!policy) {
    policy = (msg, err, ctx) => {
      log.error({ err, actor: ctx.path.toString(), kind: (msg as { kind?: string } | undefined)?.kind }, 'actor crashed; resuming');
      return ctx.resume;
    };
    crashPolicies.set(log, policy);
  }
  return policy;
}

/**
 * Spawn a child. `onCrash` is the supervision policy: we log the bug and resume; actors that
 * cache state reload it from Postgres on their next message (see RealmActor).
 */
export function spawnActor<S, M>(
  parent: Ref<unknown>,
  name: string,
  f: (state: S, msg: M) => S | Promise<S>,
  initialState: S,
  log: Logger,
): Ref<M> {
  // `f` itself, not a closure around it: nact calls it as f.call(ctx, state, msg, ctx).
  return nact.spawn(parent as Ref<never>, f as never, name, { initialState, onCrash: crashPolicy(log) } as never) as Ref<M>;
}

/**
 * Deterministic bucket for hashed parents (few hundred children per parent at most). FNV-1a,
 * then murmur3's finalizer: FNV's low bits alone are poor (keys such as direct-message keys
 * `a,b` all fell in even buckets of 16, so ten conversations shared six actors).
 */
export function bucketOf(key: string | number, buckets: number): number {
  const s = String(key);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % buckets;
}
