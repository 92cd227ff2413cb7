// The order in which an owner's pipelined batches pass through their transactions.
//
// A conversation owner may run its next batch of sends while the one before it is still being
// written (serial-actor.ts: a batched command's `pipeline`). The two transactions then overlap
// where most of the time goes, the recipients' rows, yet four points stay in the order the
// owner took the batches; at each, a batch waits until the one before it has passed:
//
//   'begun'     the transaction has its connection (realm-events.ts): the later batch asks for
//               one only then, so it never holds one that the earlier batch waits for (the
//               embedded database has a single connection);
//   'messages'  message ids are taken from one sequence as the rows go in: the later batch
//               inserts its messages only after the earlier one did, so its ids are higher;
//   'events'    the batch has written all it writes, and its events went to the log with ids
//               reserved then (realm-events.ts): the later batch's events follow the earlier
//               one's. The later batch also takes row locks (a channel's first message,
//               attachments, idempotency keys: send.ts) only from here on;
//   'commit'    the later batch sends its COMMIT once the earlier transaction is over, so no
//               reader sees a message while one before it in its conversation is missing.
//
// A batch passes every point once it is over, whatever its outcome (after a failure, once its
// sends were retried one by one: send.ts): the one after it does not wait for ever. Waits
// only ever point at a batch taken earlier, so they cannot form a cycle; a transaction that holds
// several batches (the realm's group commit, group-commit.ts) waits only for batches outside it.
// Nor can the database close one: every batch waited for past 'begun' holds the connection it
// needs to go on, and before 'events' the later batch only adds rows of its own (messages and
// their recipients), which nothing the earlier one does waits for (their foreign keys' KEY SHARE
// locks hold off only deletes and key changes, which sends make none of). Had it taken a lock
// first, the earlier batch could wait for that lock while the later one waited for it here, for
// ever: Postgres sees only one of the two waits.

export type Stage = 'begun' | 'messages' | 'events' | 'commit';

const STAGES: readonly Stage[] = ['begun', 'messages', 'events', 'commit'];

/** What a transaction of ordered batches waits for and announces. */
export interface CommitOrder {
  /** Resolves once every batch this transaction follows has passed `stage`, or failed. */
  wait(stage: Stage): Promise<void>;
  /** This transaction has passed `stage`: batches that follow it may pass it too. */
  pass(stage: Stage): void;
  /** The transaction is over, committed or not: every stage is passed. */
  settle(): void;
}

const passed = Promise.resolve();

/** For transactions that follow nothing and that nothing follows. */
export const UNORDERED: CommitOrder = {
  wait: () => passed,
  pass: () => undefined,
  settle: () => undefined,
};

interface Gate {
  readonly promise: Promise<void>;
  open: (() => void) | null;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** One batch's place in its owner's order: what it follows, and how far it has come. */
export class Turn {
  private readonly gates = new Map<Stage, Gate>(STAGES.map((s) => [s, gate()]));

  /** `before`: the owner's previous batch while it is still running, else null. */
  constructor(private before: Turn | null) {}

  /** The batch this one follows, while it runs. */
  get follows(): Turn | null {
    return this.before;
  }

  /** Resolves once this batch has passed `stage`. */
  passed(stage: Stage): Promise<void> {
    return this.gates.get(stage)!.promise;
  }

  /** Whether this batch has passed `stage`, now. */
  hasPassed(stage: Stage): boolean {
    return this.gates.get(stage)!.open === null;
  }

  pass(stage: Stage): void {
    const g = this.gates.get(stage)!;
    g.open?.();
    g.open = null;
  }

  /** Every stage passed; the batch before is forgotten (else each turn would hold every earlier one). */
  settle(): void {
    for (const s of STAGES) this.pass(s);
    this.before = null;
  }
}

/** The order of one transaction holding the given batches (null: a batch without a turn). */
export function orderOf(turns: ReadonlyArray<Turn | null>): CommitOrder {
  const mine = turns.filter((t): t is Turn => t !== null);
  if (mine.length === 0) return UNORDERED;
  const own = new Set(mine);
  return {
    wait: (stage) => {
      // A batch that follows another of the same transaction waits for nothing: they go together.
      const outside = mine.flatMap((t) => (t.follows !== null && !own.has(t.follows) ? [t.follows.passed(stage)] : []));
      return outside.length === 0 ? passed : outside.length === 1 ? outside[0]! : Promise.all(outside).then(() => undefined);
    },
    pass: (stage) => {
      for (const t of mine) t.pass(stage);
    },
    settle: () => {
      for (const t of mine) t.settle();
    },
  };
}
