import { Fifo } from "../../operators/dispatch/fifo.js";

/** What appends one value under its key; calls `done` once when it is acked or given up (synchronously, or later). */
export type AppendWork<T> = (value: T, key: string, done: () => void) => void;

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
  /**
   * Values waiting behind an append still running after its call returned, per busy key (`null`:
   * none waits yet). An append that finishes within its call (the embedded bus) never gets an
   * entry: a Map that grows and shrinks by one per event rehashes every time.
   */
  readonly #waiting = new Map<string, Fifo<T> | null>();
  /** Keys whose append is inside its call right now (a few at most: an append may push re-entrantly). */
  readonly #inCall: string[] = [];
  #idle: (() => void) | undefined;

  constructor(keyOf: (value: T) => string, work: AppendWork<T>) {
    this.#keyOf = keyOf;
    this.#work = work;
  }

  /** Keys with an append running. */
  get busy(): number {
    let inCallOnly = 0;
    for (const key of this.#inCall) if (!this.#waiting.has(key)) inCallOnly += 1;
    return this.#waiting.size + inCallOnly;
  }

  push(value: T): void {
    const key = this.#keyOf(value);
    // No lookup while nothing waits (every append on the embedded bus): hashing a fresh key is most of its cost.
    const queue = this.#waiting.size === 0 ? undefined : this.#waiting.get(key);
    if (queue === undefined) {
      // Idle, unless this push comes from inside the key's own append call: then it waits behind it.
      if (!this.#inCall.includes(key)) {
        this.#run(key, value);
        return;
      }
    } else if (queue !== null) {
      queue.push(value);
      return;
    }
    const fifo = new Fifo<T>();
    fifo.push(value);
    this.#waiting.set(key, fifo);
  }

  /** Calls `callback` once no append runs (at once when none does). */
  whenIdle(callback: () => void): void {
    if (this.#isIdle()) callback();
    else this.#idle = callback;
  }

  #isIdle(): boolean {
    return this.#waiting.size === 0 && this.#inCall.length === 0;
  }

  #run(key: string, first: T): void {
    let value: T | undefined = first;
    // A loop, not recursion: appends that finish synchronously (the embedded bus) must not grow the stack.
    while (value !== undefined) {
      let finished = false;
      let synchronous = true;
      this.#inCall.push(key);
      try {
        this.#work(value, key, () => {
          if (finished) return; // `done` is once per value; a second call must not start a key's next append twice
          finished = true;
          if (!synchronous) this.#next(key);
        });
      } finally {
        this.#inCall.pop();
      }
      synchronous = false;
      if (!finished) {
        // Still running: from here on the key is busy in the map, where its later values wait.
        if (!this.#waiting.has(key)) this.#waiting.set(key, null);
        return;
      }
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
    if (queue !== undefined) this.#waiting.delete(key);
    if (this.#idle !== undefined && this.#isIdle()) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
    return undefined;
  }
}
