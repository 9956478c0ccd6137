import { flatString } from "../../operators/ingress/flatString.js";
import { Fifo } from "./fifo.js";

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

  /** The sequence first stored under `msgId`, while that is still inside the window. */
  seqOf(msgId: string): number | undefined {
    this.#expire();
    return this.#entries.get(msgId);
  }

  /** Records a newly stored message; call only when `seqOf(msgId)` found nothing. */
  remember(msgId: string, seq: number): void {
    const kept = flatString(msgId);
    this.#entries.set(kept, seq);
    this.#order.push({ msgId: kept, at: this.#clock.now() });
  }

  #expire(): void {
    const cutoff = this.#clock.now() - this.#windowMs;
    for (let oldest = this.#order.peek(); oldest !== undefined && oldest.at <= cutoff; oldest = this.#order.peek()) {
      this.#order.shift();
      this.#entries.delete(oldest.msgId);
    }
  }
}
