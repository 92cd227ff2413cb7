// Answers wait for the end of the event loop's turn and are written together, as Redis writes its
// replies before it sleeps, not each as soon as its handler returns. A client that reads many
// connections (a load generator, a proxy) is then woken once for the turn's answers to it, where
// each answer written at once woke it again, and once woken it sends its next requests together.
//
// Measured in the typing benchmark (stop 33, BENCHMARKS.md), where waking the clients took 8 % of
// Parley's thread (in the kernel's send path): in six runs of each, alternated, Parley served
// 0.34–0.40 × R1 (mean 0.37) against 0.31–0.33 (mean 0.32) with each answer written at once,
// and the wake-ups fell to 4 % of its thread.
//
// An answer waits at most for the rest of its turn: the flush is an immediate, which runs after the
// turn's I/O callbacks. One given by another immediate (a parked poll's, from its queue actor) goes
// with the flush still due in that turn, or else with the next turn's.

/** What an answer goes to: an exchange whose client may have gone meanwhile. */
export interface Recipient {
  readonly gone: boolean;
}

export class Outbox<X extends Recipient, R> {
  private waiting: Array<{ readonly to: X; readonly answer: R; readonly close: boolean }> = [];
  private scheduled = false;

  /**
   * `write` sends an answer (`close`: end the connection after it); `failed` hears of a write that
   * threw (a bug), after which the others are still written.
   */
  constructor(
    private readonly write: (to: X, answer: R, close: boolean) => void,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Queue an answer for the end of this turn. */
  add(to: X, answer: R, close: boolean): void {
    this.waiting.push({ to, answer, close });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Write every answer waiting, in the order they came; those whose client went away are dropped. */
  flush(): void {
    this.scheduled = false;
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    this.waiting = [];
    for (const { to, answer, close } of waiting) {
      if (to.gone) continue;
      try {
        this.write(to, answer, close);
      } catch (err) {
        this.failed(err);
      }
    }
  }
}
