/**
 * A small positive-only cache with an age limit, as OpenAB keeps its Discord "another bot posted
 * here" and "this bot took part here" notes: an entry older than `ttlMs` is gone; over `maxEntries`
 * the expired ones are dropped first, then the oldest half. Pure: time comes from `now`.
 */
export class ExpiringCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly at: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { readonly ttlMs: number; readonly maxEntries?: number; readonly now: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#now = options.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() - entry.at >= this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, at: this.#now() });
    if (this.#entries.size > this.#maxEntries) this.#shrink();
  }

  #shrink(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (now - entry.at >= this.#ttlMs) this.#entries.delete(key);
    if (this.#entries.size <= this.#maxEntries) return;
    // Oldest first: the Map keeps insertion order and `set` re-inserts.
    let drop = Math.ceil(this.#entries.size / 2);
    for (const key of this.#entries.keys()) {
      if (drop === 0) return;
      this.#entries.delete(key);
      drop -= 1;
    }
  }
}
