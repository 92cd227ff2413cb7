// The deadlines of many queues (the next heartbeat, the idle expiry) on one Node timer: a binary
// heap by time. A Node timer per queue cost about 250 bytes (the Timeout, its closure, its times
// and, with jittered durations, a timer list per distinct duration); a place in the heap costs an
// array slot, eight bytes of a typed array for the time, and the index a queue keeps.
import { MAX_TIMER_MS } from '../alarm.js';

/** What the heap keeps on each item: where it is in the heap (-1: not in it). */
export interface Scheduled {
  heapIndex: number;
}

const MIN_CAPACITY = 64;

export class Deadlines<T extends Scheduled> {
  private readonly items: T[] = [];
  /**
   * items[i]'s deadline. Kept here rather than on the items: a time in epoch milliseconds is no
   * small integer, so a field of its own cost each queue a boxed number as well (24 bytes).
   */
  private times = new Float64Array(MIN_CAPACITY);
  private timer: NodeJS.Timeout | null = null;
  /** The deadline the timer is armed for (Infinity: none). */
  private armedAt = Infinity;

  constructor(
    private readonly now: () => number,
    /** Called once per item whose deadline came, with that deadline; the item is out of the heap by then. */
    private readonly due: (item: T, at: number) => void,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** When the item is due; undefined when it is not in the heap. */
  deadlineOf(item: T): number | undefined {
    return item.heapIndex >= 0 ? this.times[item.heapIndex] : undefined;
  }

  /**
   * The item is due at `at`. An item already due at or before `at` keeps its deadline (whoever
   * it fires for re-checks and sets the next one): busy queues cost no heap work.
   */
  setEarliest(item: T, at: number): void {
    let i = item.heapIndex;
    if (i >= 0) {
      if (this.times[i]! <= at) return;
      this.times[i] = at;
    } else {
      i = this.items.length;
      if (i === this.times.length) this.resize(2 * i);
      this.place(item, at, i);
    }
    this.up(i);
    this.arm();
  }

  delete(item: T): void {
    const i = item.heapIndex;
    if (i < 0) return;
    item.heapIndex = -1;
    const end = this.items.length - 1;
    const last = this.items.pop()!;
    if (last !== item) {
      this.place(last, this.times[end]!, i);
      this.down(i);
      this.up(last.heapIndex);
    }
    if (this.items.length === 0) this.disarm();
    if (this.times.length > MIN_CAPACITY && this.items.length < this.times.length / 4) this.resize(this.times.length / 2);
  }

  private resize(capacity: number): void {
    const times = new Float64Array(capacity);
    times.set(this.times.subarray(0, this.items.length));
    this.times = times;
  }

  private place(item: T, at: number, i: number): void {
    this.items[i] = item;
    this.times[i] = at;
    item.heapIndex = i;
  }

  private arm(): void {
    if (this.items.length === 0) return;
    const first = this.times[0]!;
    if (first >= this.armedAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = first;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.min(first - this.now(), MAX_TIMER_MS)));
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
      while (this.items.length > 0 && this.times[0]! <= until) {
        const item = this.items[0]!;
        const at = this.times[0]!;
        this.delete(item);
        this.due(item, at);
      }
    } finally {
      this.arm(); // the rest keep their timer even if a callback threw
    }
  }

  private up(i: number): void {
    const item = this.items[i]!;
    const at = this.times[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.times[parent]! <= at) break;
      this.place(this.items[parent]!, this.times[parent]!, i);
      i = parent;
    }
    this.place(item, at, i);
  }

  private down(i: number): void {
    const n = this.items.length;
    const item = this.items[i]!;
    const at = this.times[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.times[r]! < this.times[l]! ? r : l;
      if (this.times[child]! >= at) break;
      this.place(this.items[child]!, this.times[child]!, i);
      i = child;
    }
    this.place(item, at, i);
  }
}
