// The deadlines of many queues (the next heartbeat, the idle expiry) on one Node timer: a binary
// heap by time. A Node timer per queue cost about 250 bytes (the Timeout, its closure, its times
// and, with jittered durations, a timer list per distinct duration); a place in the heap costs an
// array slot and the two numbers a queue keeps for it.

/** What the heap keeps on each item: its deadline and where it is in the heap (-1: not in it). */
export interface Scheduled {
  deadlineAt: number;
  heapIndex: number;
}

export class Deadlines<T extends Scheduled> {
  private readonly heap: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The deadline the timer is armed for (Infinity: none). */
  private armedAt = Infinity;

  constructor(
    private readonly now: () => number,
    /** Called once per item whose deadline came; the item is out of the heap by then. */
    private readonly due: (item: T) => void,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /**
   * The item is due at `at`. An item already due at or before `at` keeps its deadline (whoever
   * it fires for re-checks and sets the next one): busy queues cost no heap work.
   */
  setEarliest(item: T, at: number): void {
    if (item.heapIndex >= 0) {
      if (item.deadlineAt <= at) return;
      item.deadlineAt = at;
      this.up(item.heapIndex);
    } else {
      item.deadlineAt = at;
      item.heapIndex = this.heap.length;
      this.heap.push(item);
      this.up(item.heapIndex);
    }
    this.arm();
  }

  delete(item: T): void {
    const i = item.heapIndex;
    if (i < 0) return;
    item.heapIndex = -1;
    const last = this.heap.pop()!;
    if (last !== item) {
      this.heap[i] = last;
      last.heapIndex = i;
      this.down(i);
      this.up(last.heapIndex);
    }
    if (this.heap.length === 0) this.disarm();
  }

  private arm(): void {
    const first = this.heap[0];
    if (!first || first.deadlineAt >= this.armedAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = first.deadlineAt;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.min(first.deadlineAt - this.now(), 2_147_000_000)));
    this.timer.unref(); // the listening socket keeps a server alive, not its queues
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedAt = Infinity;
  }

  /** Everything due by the moment the timer was armed for (the clock may be a test's). */
  private fire(): void {
    const until = this.armedAt;
    this.timer = null;
    this.armedAt = Infinity;
    try {
      while (this.heap.length > 0 && this.heap[0]!.deadlineAt <= until) {
        const item = this.heap[0]!;
        this.delete(item);
        this.due(item);
      }
    } finally {
      this.arm(); // the rest keep their timer even if a callback threw
    }
  }

  private up(i: number): void {
    const h = this.heap;
    const item = h[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.deadlineAt <= item.deadlineAt) break;
      h[i] = h[parent]!;
      h[i]!.heapIndex = i;
      i = parent;
    }
    h[i] = item;
    item.heapIndex = i;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    const item = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && h[r]!.deadlineAt < h[l]!.deadlineAt ? r : l;
      if (h[child]!.deadlineAt >= item.deadlineAt) break;
      h[i] = h[child]!;
      h[i]!.heapIndex = i;
      i = child;
    }
    h[i] = item;
    item.heapIndex = i;
  }
}
