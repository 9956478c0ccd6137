import { flatString } from "../../operators/ingress/flatString.js";
import { Fifo } from "../../operators/dispatch/fifo.js";

/** Anything that tells the time in milliseconds, such as an RxJS scheduler. */
export interface Clock {
  now(): number;
}

/**
 * The msgIds persisted during the last `windowMs`, like JetStream's duplicate window. Entries are
 * remembered in time order, so expiry takes them off the front of a queue: no timers, and no look
 * at entries that are still live. (Not by iterating the Map from its front: V8 walks every deleted
 * slot there, which made each persist cost tens of microseconds once the window filled.) A msgId is
 * kept as a flat copy (`flatString`): the one the broker builds is a rope of a piece per character.
 */
export class DedupeWindow {
  readonly #entries = new Map<string, number>();
  readonly #order = new Fifo<{ readonly msgId: string; readonly at: number }>();
  readonly #clock: Clock;
  readonly #windowMs: number;

  constructor(clock: Clock, windowMs: number) {
    this.#clock = clock;
    this.#windowMs = windowMs;
  }

  /**
   * The sequence first stored under `msgId` while that is still inside the window; otherwise
   * `undefined`, and `msgId` is remembered from now on under `seq` (the sequence the caller is about
   * to store it with). One call per append: one look at the clock, one flat copy of the key.
   */
  claim(msgId: string, seq: number): number | undefined {
    const now = this.#clock.now();
    this.#expire(now);
    const kept = flatString(msgId);
    const original = this.#entries.get(kept);
    if (original !== undefined) return original;
    this.#entries.set(kept, seq);
    this.#order.push({ msgId: kept, at: now });
    return undefined;
  }

  #expire(now: number): void {
    const cutoff = now - this.#windowMs;
    for (let oldest = this.#order.peek(); oldest !== undefined && oldest.at <= cutoff; oldest = this.#order.peek()) {
      this.#order.shift();
      this.#entries.delete(oldest.msgId);
    }
  }
}
