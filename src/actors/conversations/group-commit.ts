// Group commit across the owners of a realm. Each conversation owner already stores the sends
// that queued behind its last batch together (serial-actor.ts); the owners' batches themselves
// still arrive one per conversation. Here the batches that arrive while `lanes` transactions are
// running wait, and the next free lane stores all of them in one transaction. Ten clients sending
// into ten conversations thus cost a couple of commits, not ten.
//
// Order is not this module's concern: an owner submits its next batch only once its last one is
// answered, so a conversation's sends still commit in the order its owner took them, and batches
// of different owners never depended on each other's order.
import { fail, type Reply } from '../runtime.js';

interface Submission<I, R> {
  readonly inputs: readonly I[];
  readonly weight: number;
  readonly resolve: (replies: Array<Reply<R>>) => void;
}

export class GroupCommit<I, R> {
  private readonly waiting: Array<Submission<I, R>> = [];
  private running = 0;

  /**
   * @param run stores inputs in one transaction; one reply per input, in order
   * @param lanes transactions that may run at once
   * @param maxWeight a transaction takes waiting batches while their weight stays within this
   *   (always at least one batch, whatever its weight)
   */
  constructor(
    private readonly run: (inputs: readonly I[]) => Promise<Array<Reply<R>>>,
    private readonly lanes: number,
    private readonly maxWeight: number,
    private readonly weigh: (input: I) => number,
  ) {}

  /** Store a batch, with whatever other batches are waiting; one reply per input, in order. */
  submit(inputs: readonly I[]): Promise<Array<Reply<R>>> {
    let weight = 0;
    for (const input of inputs) weight += this.weigh(input);
    return new Promise((resolve) => {
      this.waiting.push({ inputs, weight, resolve });
      this.startLanes();
    });
  }

  private startLanes(): void {
    while (this.running < this.lanes && this.waiting.length > 0) {
      let taken = 1;
      let weight = this.waiting[0]!.weight;
      while (taken < this.waiting.length && weight + this.waiting[taken]!.weight <= this.maxWeight) weight += this.waiting[taken++]!.weight;
      this.running++;
      void this.store(this.waiting.splice(0, taken));
    }
  }

  private async store(batches: ReadonlyArray<Submission<I, R>>): Promise<void> {
    const inputs = batches.length === 1 ? batches[0]!.inputs : batches.flatMap((b) => b.inputs);
    let replies: Array<Reply<R>>;
    try {
      replies = await this.run(inputs);
    } catch (e) {
      replies = inputs.map(() => fail(e));
    }
    this.running--;
    let at = 0;
    for (const b of batches) {
      b.resolve(replies.slice(at, at + b.inputs.length));
      at += b.inputs.length;
    }
    this.startLanes();
  }
}
