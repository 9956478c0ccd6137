/**
 * Runs tasks one after another per key, keys side by side: a channel's messages are filtered,
 * counted and turned into events in the order Discord gave them, while a slow lookup in one
 * channel holds up no other. A key is forgotten once its last task ended. A task's failure is the
 * task's to handle: it never stops the next one.
 */
export class SerialByKey {
  readonly #tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const mine = previous.then(task).catch(() => undefined);
    this.#tails.set(key, mine);
    void mine.then(() => {
      if (this.#tails.get(key) === mine) this.#tails.delete(key);
    });
    return mine;
  }

  /** Keys with a task still to run or running. */
  get size(): number {
    return this.#tails.size;
  }

  /** Resolves once every task taken so far has ended. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }
}
