import { Observable } from "rxjs";
import { MemoryRateBuckets, type RateBuckets, type Take, type TakeMode } from "../../operators/delivery/flow/rateBuckets.js";
import type { BucketLimit } from "../../operators/delivery/flow/tokenBucket.js";
import type { Logger } from "../log/logger.js";

/** How long a worker shapes by its local share after the shared store failed, before it asks the store again. */
export const SHARED_RATES_RETRY_MS = 5_000;

export interface FallbackRateBucketsOptions {
  /** The deployment's buckets (NATS KV). */
  readonly shared: RateBuckets;
  /** This worker's part of the deployment, in (0, 1]: what its local buckets allow of each limit meanwhile. */
  readonly share: () => number;
  readonly logger: Logger;
  readonly retryMs?: number;
}

/**
 * The shared per-bot buckets, and this worker's share of them when they cannot be reached: a take
 * the shared store fails is answered by a local bucket holding `share()` of the limit, and for the
 * next `retryMs` every take of that platform's bucket is; then the store is asked again. So a worker cut off from the store
 * stays within its part of the limit rather than sending unshaped or not at all. Logged once per
 * outage (`shared rate limits unreachable; shaping locally`) and on its end.
 */
export class FallbackRateBuckets implements RateBuckets {
  readonly #options: FallbackRateBucketsOptions;
  readonly #local = new MemoryRateBuckets();
  /** Per platform: shaping locally until then (ms), after a failure. */
  readonly #localUntil = new Map<string, number>();

  constructor(options: FallbackRateBucketsOptions) {
    this.#options = options;
  }

  take(key: string, limit: BucketLimit, now: number, mode: TakeMode): Observable<Take> {
    return new Observable<Take>((subscriber) => {
      const localUntil = this.#localUntil.get(key);
      if (localUntil !== undefined && now < localUntil) {
        subscriber.next(this.#localTake(key, limit, now, mode));
        subscriber.complete();
        return undefined;
      }
      return this.#options.shared.take(key, limit, now, mode).subscribe({
        next: (take) => {
          if (this.#localUntil.delete(key)) this.#options.logger.info({ platform: key }, "shared rate limits reachable again");
          subscriber.next(take);
        },
        error: (err: unknown) => {
          const retryMs = this.#options.retryMs ?? SHARED_RATES_RETRY_MS;
          const down = this.#localUntil.has(key);
          this.#localUntil.set(key, now + retryMs);
          if (!down) {
            this.#options.logger.warn({ reason: "rate_store_unreachable", platform: key, share: this.#options.share(), retryMs, err }, "shared rate limits unreachable; shaping locally");
          }
          subscriber.next(this.#localTake(key, limit, now, mode));
          subscriber.complete();
        },
        complete: () => subscriber.complete(),
      });
    });
  }

  #localTake(key: string, limit: BucketLimit, now: number, mode: TakeMode): Take {
    return this.#local.takeNow(key, shareOf(limit, this.#options.share()), now, mode);
  }
}

/**
 * `share` of a limit, in whole messages: at least one per (stretched) period, so a small share
 * slows sends down instead of stopping them; burst scaled likewise.
 */
export function shareOf(limit: BucketLimit, share: number): BucketLimit {
  const part = Math.min(1, Math.max(share, 1e-6));
  if (part === 1) return limit;
  const exact = limit.messages * part;
  const messages = Math.max(1, Math.floor(exact));
  return { messages, perSecs: (limit.perSecs * messages) / exact, burst: Math.max(1, Math.floor(limit.burst * part)) };
}
