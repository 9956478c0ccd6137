/** Compact once this many consumed slots make up at least half of the array. */
const COMPACT_AFTER = 1024;

/**
 * A first-in first-out queue with O(1) amortised `shift`: an array's own `shift` may move every
 * remaining element, which turns a long queue into quadratic work.
 */
export class Fifo<T> {
  #items: Array<T | undefined> = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
