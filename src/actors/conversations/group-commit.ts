// Group commit across the owners of a realm. Each conversation owner already stores the sends
// that queued behind its last batch together (serial-actor.ts); the owners' batches themselves
// still arrive one per conversation. Here the batches that arrive while `lanes` transactions are
// running wait, and the next free lane stores all of them in one transaction. Ten clients sending
// into ten conversations thus cost a couple of commits, not ten.
//
// A batch that weighs `soloWeight` or more (a send to a large channel) runs at once in a
// transaction of its own, outside the lanes: sharing a commit saves it nothing, and it would hold
// a lane for as long as it writes while small sends wait.
//
// Order: an owner may submit its next batch while the last one runs (serial-actor.ts, `pipeline`),
// each with its Turn. A transaction is handed the order of the batches it holds (commit-order.ts),
// so a conversation's sends still take their ids and commit in the order its owner took them;
// batches of different owners never depended on each other's order. Lanes are taken in order
// of submission, so a batch never waits for a lane behind a batch that follows it.
import { orderOf, type CommitOrder, type Turn } from '../commit-order.js';
import { fail, type Reply } from '../runtime.js';

interface Submission<I, R> {
  readonly inputs: readonly I[];
  readonly weight: number;
  readonly turn: Turn | null;
  readonly resolve: (replies: Array<Reply<R>>) => void;
}

export interface GroupCommitOptions {
  /** Transactions that may run at once. */
  readonly lanes: number;
  /** A transaction takes waiting batches while their weight stays within this (always at least one). */
  readonly maxWeight: number;
  /** A batch this heavy runs at once, alone and outside the lanes. */
  readonly soloWeight: number;
}

export class GroupCommit<I, R> {
  private readonly waiting: Array<Submission<I, R>> = [];
  private running = 0;

  /**
   * `run` stores inputs in one transaction, in the given order (it settles the order, or the
   * group commit does when `run` is done): one reply per input, in order.
   */
  constructor(
    private readonly run: (inputs: readonly I[], order: CommitOrder) => Promise<Array<Reply<R>>>,
    private readonly o: GroupCommitOptions,
  ) {}

  /**
   * Store a batch of the given weight (as its owner weighed it) with whatever other batches are
   * waiting, after the batch its turn follows; one reply per input, in order.
   */
  submit(inputs: readonly I[], weight: number, turn: Turn | null = null): Promise<Array<Reply<R>>> {
    return new Promise((resolve) => {
      if (weight >= this.o.soloWeight) {
        void this.store([{ inputs, weight, turn, resolve }], false);
        return;
      }
      this.waiting.push({ inputs, weight, turn, resolve });
      this.startLanes();
    });
  }

  private startLanes(): void {
    while (this.running < this.o.lanes && this.waiting.length > 0) {
      let taken = 1;
      let weight = this.waiting[0]!.weight;
      while (taken < this.waiting.length && weight + this.waiting[taken]!.weight <= this.o.maxWeight) weight += this.waiting[taken++]!.weight;
      this.running++;
      void this.store(this.waiting.splice(0, taken), true);
    }
  }

  private async store(batches: ReadonlyArray<Submission<I, R>>, inLane: boolean): Promise<void> {
    const inputs = batches.length === 1 ? batches[0]!.inputs : batches.flatMap((b) => b.inputs);
    const order = orderOf(batches.map((b) => b.turn));
    let replies: Array<Reply<R>>;
    try {
      replies = await this.run(inputs, order);
    } catch (e) {
      replies = inputs.map(() => fail(e));
    } finally {
      order.settle();
    }
    let at = 0;
    for (const b of batches) {
      b.resolve(replies.slice(at, at + b.inputs.length));
      at += b.inputs.length;
    }
    if (!inLane) return;
    this.running--;
    this.startLanes();
  }
}
