/** What the window said to one more delivery. */
export type RateDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSecs: number };

const WINDOW_MS = 60_000;

/**
 * At most `perMinute` deliveries in any 60 s: a sliding window over the times of the last
 * `perMinute` it let through (a ring, so memory is fixed by the config and each decision is O(1)).
 * A refusal says when the oldest of them leaves the window (`Retry-After`, whole seconds, at least 1).
 * Time is the caller's clock in milliseconds (the listener's is monotonic: `performance.now()`).
 */
export class RateWindow {
  readonly #times: Float64Array;
  readonly #now: () => number;
  /** Where the next time is written: the oldest kept, once the ring is full. */
  #next = 0;
  #count = 0;

  constructor(perMinute: number, now: () => number) {
    if (!Number.isSafeInteger(perMinute) || perMinute < 1) throw new RangeError(`perMinute must be a positive integer, got ${perMinute}`);
    this.#times = new Float64Array(perMinute);
    this.#now = now;
  }

  /** Counts one delivery if the window has room, else says how long until it has. */
  take(): RateDecision {
    const now = this.#now();
    if (this.#count === this.#times.length) {
      const oldest = this.#times[this.#next] as number;
      const waitMs = oldest + WINDOW_MS - now;
      if (waitMs > 0) return { ok: false, retryAfterSecs: Math.max(1, Math.ceil(waitMs / 1000)) };
    } else {
      this.#count++;
    }
    this.#times[this.#next] = now;
    this.#next = (this.#next + 1) % this.#times.length;
    return { ok: true };
  }
}
