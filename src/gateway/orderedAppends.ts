import { Fifo } from "../bus/fifo.js";

/** What appends one value; calls `done` once when it is acked or given up (synchronously, or later). */
export type AppendWork<T> = (value: T, done: () => void) => void;

/**
 * The edge's appends, in order per conversation and side by side across conversations: a key's
 * next append starts once its previous one is done, so an append retried across a bus outage can
 * never land after a later event of its conversation; other keys' appends are outstanding
 * meanwhile (one round trip per event overall would cap an edge). A key is forgotten as soon as
 * it is idle. Callbacks rather than a stream per event: the edge's hot path is one call per event.
 */
export class OrderedAppends<T> {
  readonly #keyOf: (value: T) => string;
  readonly #work: AppendWork<T>;
  /** Values waiting behind a running append, per busy key (`null`: none waits yet); an idle key has no entry. */
  readonly #waiting = new Map<string, Fifo<T> | null>();
  #idle: (() => void) | undefined;

  constructor(keyOf: (value: T) => string, work: AppendWork<T>) {
    this.#keyOf = keyOf;
    this.#work = work;
  }

  /** Keys with an append running. */
  get busy(): number {
    return this.#waiting.size;
  }

  push(value: T): void {
    const key = this.#keyOf(value);
    const queue = this.#waiting.get(key);
    if (queue === undefined) {
      this.#waiting.set(key, null);
      this.#run(key, value);
      return;
    }
    if (queue !== null) {
      queue.push(value);
      return;
    }
    const fifo = new Fifo<T>();
    fifo.push(value);
    this.#waiting.set(key, fifo);
  }

  /** Calls `callback` once no append runs (at once when none does). */
  whenIdle(callback: () => void): void {
    if (this.#waiting.size === 0) callback();
    else this.#idle = callback;
  }

  #run(key: string, first: T): void {
    let value: T | undefined = first;
    // A loop, not recursion: appends that finish synchronously (the embedded bus) must not grow the stack.
    while (value !== undefined) {
      let finished = false;
      let synchronous = true;
      this.#work(value, () => {
        if (finished) return; // `done` is once per value; a second call must not start a key's next append twice
        finished = true;
        if (!synchronous) this.#next(key);
      });
      synchronous = false;
      if (!finished) return;
      value = this.#take(key);
    }
  }

  #next(key: string): void {
    const value = this.#take(key);
    if (value !== undefined) this.#run(key, value);
  }

  /** The key's next waiting value, or `undefined` (and the key forgotten) when none waits. */
  #take(key: string): T | undefined {
    const queue = this.#waiting.get(key);
    if (queue != null && queue.length > 0) return queue.shift();
    this.#waiting.delete(key);
    if (this.#waiting.size === 0 && this.#idle !== undefined) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
    return undefined;
  }
}
