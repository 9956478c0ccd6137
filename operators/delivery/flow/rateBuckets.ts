import { Observable } from "rxjs";
import { bucketFull, earliestDeparture, takeToken, type BucketLimit, type BucketState } from "./tokenBucket.js";

/**
 * How a send asks a bucket for its token:
 * - `reserve`: take the next token, however far ahead, and go then (a reply to a person: it
 *   queues, first come first served);
 * - `now`: take a token only if there is one now; otherwise take nothing and ask again at the
 *   time given (a proactive send: it yields to every reply reserved ahead of it).
 */
export type TakeMode = "reserve" | "now";

/** A bucket's answer: when the send may go (`taken`), or when to ask again (not `taken`). */
export interface Take {
  readonly at: number;
  readonly taken: boolean;
}

/**
 * Buckets several senders share: the per-bot bucket of a deployment, which every worker's sends
 * to a platform count against. The NATS KV implementation keeps each bucket's state under its key
 * and takes a token with a compare-and-set, retried on conflict.
 *
 * `take` returns a lazy Observable that does its work on subscription and emits exactly one value,
 * then completes (or errors on an I/O failure), as every storage port does. `now` is the caller's
 * clock (ms), so marble tests drive it in virtual time.
 */
export interface RateBuckets {
  take(key: string, limit: BucketLimit, now: number, mode: TakeMode): Observable<Take>;
  /** `take`, answered at once, for a store that needs no I/O (memory): the shaper's fast path. */
  takeNow?(key: string, limit: BucketLimit, now: number, mode: TakeMode): Take;
}

/** What asking `state` for a token at `now` comes to: the answer, and the bucket after (unchanged when nothing was taken). */
export function takeFrom(state: BucketState | undefined, limit: BucketLimit, now: number, mode: TakeMode): { readonly take: Take; readonly state: BucketState | undefined } {
  const at = earliestDeparture(state, limit, now);
  if (mode === "now" && at > now) return { take: { at, taken: false }, state };
  return { take: { at, taken: true }, state: takeToken(state, limit, at) };
}

/** Buckets in this process: the embedded bus's per-bot buckets, and a worker's local share when the shared store cannot be reached. */
export class MemoryRateBuckets implements RateBuckets {
  readonly #states = new Map<string, { state: BucketState; limit: BucketLimit }>();
  readonly #maxKeys: number;
  /** When the buckets remembered reach this, those as good as new are forgotten (then twice what is left, so a sweep is amortised). */
  #sweepAt: number;

  /** `maxKeys`: buckets remembered at once; past it, those as good as new are forgotten. Default 10,000. */
  constructor(options: { readonly maxKeys?: number } = {}) {
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#sweepAt = this.#maxKeys;
  }

  take(key: string, limit: BucketLimit, now: number, mode: TakeMode): Observable<Take> {
    // One Observable per send, answering on subscription (defer + of would be two).
    return new Observable<Take>((subscriber) => {
      subscriber.next(this.takeNow(key, limit, now, mode));
      subscriber.complete();
    });
  }

  /** `take`, synchronously. */
  takeNow(key: string, limit: BucketLimit, now: number, mode: TakeMode): Take {
    const known = this.#states.get(key);
    const { take, state } = takeFrom(known?.state, limit, now, mode);
    if (state === undefined) return take;
    if (known !== undefined) {
      known.state = state;
      known.limit = limit;
      return take;
    }
    if (this.#states.size >= this.#sweepAt) {
      for (const [kept, { state: keptState, limit: keptLimit }] of this.#states) if (bucketFull(keptState, keptLimit, now)) this.#states.delete(kept);
      this.#sweepAt = Math.max(this.#maxKeys, 2 * this.#states.size);
    }
    this.#states.set(key, { state, limit });
    return take;
  }
}
