// An actor that runs typed commands one at a time, the way the realm actor does, for the
// messaging owners below the realm: one actor per channel, hashed actors for direct-message
// conversations and for users' personal data (flags, topic settings). Expected failures are
// replies; a command may also reply with a Reroute: "this message now belongs to another
// conversation, ask its owner" (see conversations.ts for the move protocol).
//
// A command may be batched (sends: group commit). Its messages are queued as they arrive and a
// writer runs the queue in batches, each batch in one go, while the actor goes on receiving; any
// other command waits until every batch queued before it is done, so the owner's order holds.
// A batched command may be pipelined: the next batch starts while the one before it runs (once
// that one has passed a given stage), and its Turn (commit-order.ts) keeps the two in order
// where order matters.
import type { Logger } from 'pino';
import { Turn, type Stage } from '../commit-order.js';
import { isApiError } from '../../domain/errors.js';
import { isDatabaseUnavailable } from '../../store/database.js';
import { fail, ok, reply, spawnActor, type Ref, type Reply } from '../runtime.js';

export interface SerialCommand<C> {
  readonly kind: 'command';
  readonly name: string;
  readonly input: unknown;
  readonly replyTo: Ref<Reply<unknown>>;
  /** Unused at runtime; ties a message to its context type. */
  readonly _ctx?: C;
}

/** Thrown by a command whose message moved to another conversation meanwhile. */
export class Reroute extends Error {
  constructor(readonly to: { readonly channelId: number }) {
    super('rerouted');
  }
}

/** How a batched command's batches overlap. */
export interface Pipeline {
  /** Batches of the command that run at once. */
  readonly depth: number;
  /** The next batch starts once the one before it has passed this stage; inputs that arrive meanwhile join it. */
  readonly startAfter: Stage;
}

const ONE_AT_A_TIME: Pipeline = { depth: 1, startAfter: 'commit' };

/**
 * A command run on several queued inputs at once; one Reply per input, in order. A batch takes
 * queued inputs while their total weight stays within `maxWeight` (always at least one); `run`
 * is told that total, and the batch's turn, which follows the batch before while that one runs
 * (`run` passes its stages; the actor settles it once `run` returns).
 */
export class Batched<C, I, R> {
  constructor(
    readonly run: (ctx: C, inputs: readonly I[], weight: number, turn: Turn) => Promise<Array<Reply<R>>>,
    readonly maxWeight: number,
    readonly weigh: (ctx: C, input: I) => number = () => 1,
    readonly pipeline: Pipeline = ONE_AT_A_TIME,
  ) {}
}

type Single<C> = (ctx: C, input: never) => Promise<unknown>;
export type CommandTable<C> = Readonly<Record<string, Single<C> | Batched<C, never, unknown>>>;

/** The input and answer type of a command, batched or not. */
export type CommandInput<T> = T extends Batched<never, infer I, unknown> ? I : T extends (ctx: never, input: infer I) => Promise<unknown> ? I : never;
export type CommandResult<T> = T extends Batched<never, never, infer R> ? R : T extends (ctx: never, input: never) => Promise<infer R> ? R : never;

interface Queued {
  readonly command: string;
  readonly input: unknown;
  readonly replyTo: Ref<Reply<unknown>>;
}

function logFailure(log: Logger, e: unknown, actor: string, command: string): void {
  // An outage is not a bug: the request that asked reports it (a 503).
  if (!isApiError(e) && !(e instanceof Reroute) && !isDatabaseUnavailable(e)) log.error({ err: e, actor, command }, 'command failed');
}

export function spawnSerialActor<C>(
  parent: Ref<unknown>,
  name: string,
  ctx: C,
  commands: CommandTable<C>,
  log: Logger,
): Ref<SerialCommand<C>> {
  /** Batched commands in arrival order; a batch is a run of one command from the head. */
  const queue: Queued[] = [];
  /** Batches running, all of one command; the turn of the last one started. */
  let running = 0;
  let runningCommand = '';
  let lastTurn: Turn | null = null;
  /** The turn whose stage startBatches waits for, if any. */
  let awaited: Turn | null = null;
  /** Resolves once the queue is empty and no batch runs; null while that is so. */
  let writer: Promise<void> | null = null;
  let drained: (() => void) | null = null;

  const runBatch = async (batched: Batched<C, unknown, unknown>, command: string, batch: Queued[], weight: number, turn: Turn) => {
    let replies: Array<Reply<unknown>>;
    try {
      replies = await batched.run(ctx, batch.map((b) => b.input), weight, turn);
    } catch (e) {
      replies = batch.map(() => fail(e));
    } finally {
      turn.settle();
    }
    batch.forEach((b, i) => {
      const r = replies[i]!;
      if (!r.ok) logFailure(log, r.error, name, command);
      reply(b.replyTo, r);
    });
  };

  /**
   * Start every batch that may start now: the head's command, while fewer than its depth run and
   * the last one has passed the pipeline's stage.
   */
  const startBatches = () => {
    while (queue.length > 0) {
      const command = queue[0]!.command;
      const batched = commands[command] as Batched<C, unknown, unknown>;
      const { depth, startAfter } = batched.pipeline;
      if (running > 0) {
        if (command !== runningCommand || running >= depth) return;
        if (!lastTurn!.hasPassed(startAfter)) {
          if (awaited !== lastTurn) {
            awaited = lastTurn;
            void lastTurn!.passed(startAfter).then(startBatches);
          }
          return;
        }
      }
      let size = 0;
      let weight = 0;
      while (size < queue.length && queue[size]!.command === command) {
        const w = batched.weigh(ctx, queue[size]!.input);
        if (size > 0 && weight + w > batched.maxWeight) break;
        weight += w;
        size++;
      }
      const turn = new Turn(running > 0 ? lastTurn : null);
      lastTurn = turn;
      running++;
      runningCommand = command;
      void runBatch(batched, command, queue.splice(0, size), weight, turn).finally(() => {
        running--;
        if (running === 0) lastTurn = null;
        startBatches();
      });
    }
    if (running === 0) {
      writer = null;
      drained?.();
      drained = null;
    }
  };

  return spawnActor<null, SerialCommand<C>>(
    parent,
    name,
    async (_st, msg) => {
      const command = commands[msg.name];
      if (command instanceof Batched) {
        queue.push({ command: msg.name, input: msg.input, replyTo: msg.replyTo });
        writer ??= new Promise<void>((resolve) => (drained = resolve));
        startBatches();
        return null;
      }
      // Batches queued before this command go first (no new ones are queued meanwhile: the
      // actor handles one message at a time, this one included).
      while (writer) await writer;
      try {
        if (!command) throw new Error(`Unknown command ${msg.name} for ${name}`);
        reply(msg.replyTo, ok(await command(ctx, msg.input as never)));
      } catch (e) {
        logFailure(log, e, name, msg.name);
        reply(msg.replyTo, fail(e));
      }
      return null;
    },
    null,
    log,
  );
}
