/**
 * Hands values on per key in the order they were taken, each once it is ready, keys side by side:
 * a message whose voice note is still downloading holds back the later messages of its own
 * conversation, never another's. A value with nothing before it that is ready at once is handed on
 * within the call.
 */
export class ConversationOrder {
  /** Per key, the last value's hand-over still to come. */
  readonly #tails = new Map<string, Promise<void>>();

  after<T>(key: string, value: T | Promise<T>, hand: (value: T) => void): void {
    const previous = this.#tails.get(key);
    if (previous === undefined && !(value instanceof Promise)) {
      hand(value);
      return;
    }
    const mine = Promise.all([previous, value]).then(([, ready]) => hand(ready));
    this.#tails.set(key, mine);
    void mine.finally(() => {
      if (this.#tails.get(key) === mine) this.#tails.delete(key);
    });
  }

  /** Keys with a hand-over still to come. */
  get size(): number {
    return this.#tails.size;
  }
}
