/**
 * A FIFO mutex per key: `acquire(key)` resolves with a release function once every earlier holder
 * of that key has released. A key's entry is removed as soon as nobody holds or waits for it.
 */
export class KeyLock {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #holders = new Map<string, number>();

  async acquire(key: string): Promise<() => void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    this.#holders.set(key, (this.#holders.get(key) ?? 0) + 1);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      const left = (this.#holders.get(key) ?? 1) - 1;
      if (left === 0) {
        this.#holders.delete(key);
        this.#tails.delete(key);
      } else this.#holders.set(key, left);
    };
  }

  /** Whether someone holds or waits for `key`. */
  isBusy(key: string): boolean {
    return this.#holders.has(key);
  }

  get size(): number {
    return this.#holders.size;
  }
}
