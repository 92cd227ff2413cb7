// A bounded cache that keeps what is in use (verified Authorization headers, the organization of
// each Host header).

/**
 * A cache of at most twice `generation` entries that keeps what is in use: two maps, the newer
 * taking every insertion. When the newer is full it becomes the older, and the older is dropped
 * with whatever was not used meanwhile; a hit in the older moves the entry into the newer (under
 * the key it was looked up by: a header is a new string with every request, and a copy left in
 * the older map would keep both). A single map cleared when full dropped every entry at once, the
 * busiest included, and a bound large enough to hold every user made each user cost an entry
 * (about 140 bytes with its header) whether they were busy or not.
 */
export class RecentlyUsed<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();

  constructor(private readonly generation: number) {}

  get size(): number {
    return this.newer.size + this.older.size;
  }

  get(key: K): V | undefined {
    const v = this.newer.get(key);
    if (v !== undefined) return v;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.set(key, old);
    }
    return old;
  }

  /** Forget every entry (what they were computed from changed). */
  clear(): void {
    this.newer = new Map();
    this.older = new Map();
  }

  set(key: K, value: V): void {
    if (this.newer.size >= this.generation) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }
}
