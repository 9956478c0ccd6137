import { nowNs } from "./benchEnv.js";

/** Counts settled events and tells when a count is reached, stamped with the monotonic clock at that moment. */
export class SettleCounter {
  #count = 0;
  #target = Number.POSITIVE_INFINITY;
  #reached: ((atNs: bigint) => void) | undefined;

  get count(): number {
    return this.#count;
  }

  tick(): void {
    this.#count += 1;
    if (this.#count === this.#target) {
      const reached = this.#reached;
      this.#reached = undefined;
      this.#target = Number.POSITIVE_INFINITY;
      reached?.(nowNs());
    }
  }

  /** Resolves at the `tick` that makes the count `target` (at once if it is already there), or rejects after `timeoutMs`. */
  reach(target: number, timeoutMs: number): Promise<bigint> {
    if (this.#count >= target) return Promise.resolve(nowNs());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.#count} of ${target} events settled after ${timeoutMs} ms`)), timeoutMs);
      this.#target = target;
      this.#reached = (atNs) => {
        clearTimeout(timer);
        resolve(atNs);
      };
    });
  }
}
