// The nact actor system and the conventions every actor follows (DESIGN.md §3):
// - a request to an actor carries `replyTo`; the answer is a Reply, so expected failures travel
//   as values (`{ok:false, error}`) and only bugs throw;
// - `ask` is the one typed query with a timeout; a timeout becomes a 503 for the client;
// - no actor awaits slow work on behalf of another, and parents keep few children.
import nact from 'nact';
import type { Ref } from 'nact';
import nactActor from 'nact/lib/actor.js';
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

type CrashContext = { resume: symbol; path: { toString(): string } };
type CrashPolicy = (msg: unknown, err: unknown, ctx: CrashContext) => symbol;

/** Every actor's supervision policy: the bug is logged and the actor resumes with its next message. */
export function logAndResume(log: Logger, msg: unknown, err: unknown, ctx: CrashContext): symbol {
  log.error({ err, actor: ctx.path.toString(), kind: (msg as { kind?: string } | undefined)?.kind }, 'actor crashed; resuming');
  return ctx.resume;
}

/** One policy per logger, shared by its actors (thousands of queue actors each held a closure). */
const crashPolicies = new WeakMap<Logger, CrashPolicy>();

function crashPolicy(log: Logger): CrashPolicy {
  let policy = crashPolicies.get(log);
  if (!policy) {
    policy = (msg, err, ctx) => logAndResume(log, msg, err, ctx);
    crashPolicies.set(log, policy);
  }
  return policy;
}

/**
 * nact's actor class, as the base of an actor that is its own state: one object where an actor
 * and the state it holds were two (80 bytes more, with one actor per event queue). The instance
 * is the actor and its reference; the subclass gives, on its prototype, nact's `f(state, msg)`
 * and `onCrash` (see logAndResume); `state` is the instance. `new` spawns it as a child of
 * `parent`, a running actor (not the system), under `name`, unique among the parent's children.
 */
export abstract class SelfActor extends (nactActor.Actor as abstract new (parent: Ref<never>, name: string) => object) {
  /** The actor's name among its parent's children. */
  declare readonly name: string;

  constructor(parent: Ref<never>, name: string) {
    // nact's spawn resolves a reference to what it names; here the parent is an actor itself.
    if (!(parent instanceof nactActor.Actor) || (parent as { stopped?: boolean }).stopped) {
      throw new Error(`${name}: its parent is to be a running actor (not the system)`);
    }
    super(parent, name);
  }

  /** nact's state for the handler, from the start: the actor itself (no field of nact's holds it). */
  get initialState(): this {
    return this;
  }

  get state(): this {
    return this;
  }

  /** What the handler returned: itself, always (a handler that returned another state is a bug). */
  set state(next: this) {
    if (next !== this) throw new Error(`${this.name}: a handler returned another state`);
  }
}

/** The running child of an actor named `name`: nact's map of its children, read directly. */
export function childNamed(parent: Ref<never>, name: string): unknown {
  return (parent as unknown as { children: ReadonlyMap<string, unknown> }).children.get(name);
}

/** The running children of an actor. */
export function childrenOf(parent: Ref<never>): IterableIterator<unknown> {
  return (parent as unknown as { children: ReadonlyMap<string, unknown> }).children.values();
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
