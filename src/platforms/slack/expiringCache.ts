/**
 * A bounded map whose entries expire: what the Slack adapter remembers for a while (display names
 * for 5 minutes, threads it is involved in, threads where another bot posted). At most `maxEntries`;
 * setting one more first drops the expired entries, then the oldest half (upstream's rule for its
 * multibot cache). Time comes from `now`, so it is tested without waiting.
 */
export class ExpiringCache<V> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** In insertion order: the oldest first. */
  readonly #entries = new Map<string, { readonly value: V; readonly expires: number }>();

  constructor(options: { readonly ttlMs: number; readonly maxEntries: number; readonly now: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = Math.max(1, options.maxEntries);
    this.#now = options.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.#now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) this.#makeRoom();
    this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
  }

  #makeRoom(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expires <= now) this.#entries.delete(key);
    if (this.#entries.size < this.#maxEntries) return;
    let drop = Math.ceil(this.#entries.size / 2);
    for (const key of this.#entries.keys()) {
      if (drop-- <= 0) break;
      this.#entries.delete(key);
    }
  }
}
