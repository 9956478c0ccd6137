import { Observable, Subscription } from "rxjs";
import { MemoryRateBuckets, type RateBuckets, type Take, type TakeMode } from "../../operators/delivery/flow/rateBuckets.js";
import { windowOf, type BucketLimit } from "../../operators/delivery/flow/tokenBucket.js";

/** The part of each per-bot limit the workers keep locally, split by the partitions they own; the rest is the shared pool. */
export const LOCAL_PART = 0.5;

/**
 * A limit of fewer sends per window is not split: it is the pool's alone. Its rate is low enough
 * that asking the pool for every send costs nothing that matters, and split into whole sends per
 * worker it would lose up to one send per worker and window to rounding.
 */
export const SPLIT_FROM = 16;

export interface ShareFirstRateBucketsOptions {
  /** The deployment's pool: the rest of each limit, asked over the network (NATS KV). */
  readonly pool: RateBuckets;
  /** This worker's part of the deployment, in [0, 1]: the partitions it owns over all of them. */
  readonly share: () => number;
}

/**
 * The per-bot buckets of a worker on a shared bus, without a round trip per send while the limit
 * is far off. Each limit is split in whole sends per window (its window unchanged):
 *
 * - this worker's local part, `LOCAL_PART` of the limit times its share of the partitions, kept
 *   in memory: a send that finds a token there goes at once;
 * - the pool, the limit less every worker's local part at most, in `pool`: a reply that finds no
 *   local token takes the pool's; a proactive send takes only a pool token there is now, so replies
 *   to people go first on both parts.
 *
 * A limit under `SPLIT_FROM` sends per window is the pool's alone. Partitions are owned by one
 * worker at a time, and a share that grows counts from a window later, so the local parts never
 * add up to more than `LOCAL_PART` of the limit, and local parts plus pool never to more than the
 * limit, in any window. A worker that serves more conversations owns more partitions and so a
 * larger local part; a burst beyond it is what the pool is for.
 */
export class ShareFirstRateBuckets implements RateBuckets {
  readonly #options: ShareFirstRateBucketsOptions;
  readonly #local = new MemoryRateBuckets();
  /** Per limit object: its local part at the share it was last computed for, and its pool part. */
  readonly #parts = new WeakMap<BucketLimit, Parts>();

  constructor(options: ShareFirstRateBucketsOptions) {
    this.#options = options;
  }

  take(key: string, limit: BucketLimit, now: number, mode: TakeMode): Observable<Take> {
    const { local, pool } = this.#partsOf(limit, now);
    // The local part is for replies to people: a proactive send takes only a pool token there is now.
    if (local === undefined || mode === "now") return this.#options.pool.take(key, pool, now, mode);
    const take = this.#local.takeNow(key, local, now, "now");
    if (take.taken) {
      return new Observable<Take>((subscriber) => {
        subscriber.next(take);
        subscriber.complete();
      });
    }
    // None here now: the pool's token if it has one now; otherwise whichever comes first, the
    // local part's next token (ask again then) or — a person's reply — the pool's next, reserved.
    const localAt = take.at;
    return new Observable<Take>((subscriber) => {
      const asked = new Subscription();
      asked.add(
        this.#options.pool.take(key, pool, now, "now").subscribe({
          next: (poolTake) => {
            if (poolTake.taken || localAt <= poolTake.at) {
              subscriber.next(poolTake.taken ? poolTake : { at: Math.min(localAt, poolTake.at), taken: false });
              subscriber.complete();
              return;
            }
            asked.add(this.#options.pool.take(key, pool, now, "reserve").subscribe(subscriber));
          },
          error: (err: unknown) => subscriber.error(err),
        }),
      );
      return asked;
    });
  }

  /**
   * The parts of `limit` at this worker's share now. A share that grew (partitions taken over)
   * counts from one window later: the worker that held those partitions may have spent their part
   * of the window just before it let them go, and the two parts must not both be spent in one
   * window. A share that shrank counts at once.
   */
  #partsOf(limit: BucketLimit, now: number): Parts {
    const share = Math.min(1, Math.max(0, this.#options.share()));
    const known = this.#parts.get(limit);
    if (known !== undefined && known.share === share && known.pending === undefined) return known;
    if (known === undefined || share < known.share) return this.#setParts(limit, share);
    if (known.pending === undefined || known.pending.share !== share) {
      // Grown (again): the larger part from a window on, the current one until then.
      known.pending = { share, from: now + windowOf(limit).ms };
      return known;
    }
    return now >= known.pending.from ? this.#setParts(limit, share) : known;
  }

  #setParts(limit: BucketLimit, share: number): Parts {
    const parts: Parts = limit.messages < SPLIT_FROM ? { share, local: undefined, pool: limit } : { share, local: portion(limit, LOCAL_PART * share), pool: poolOf(limit) };
    this.#parts.set(limit, parts);
    return parts;
  }
}

/** A limit's parts on this worker, at `share`; `pending`: a larger share, counted from `from`. */
interface Parts {
  readonly share: number;
  readonly local: BucketLimit | undefined;
  readonly pool: BucketLimit;
  pending?: { readonly share: number; readonly from: number };
}

/** `fraction` of a limit in whole sends (rounded down), over the same window; none when that is no send at all. */
export function portion(limit: BucketLimit, fraction: number): BucketLimit | undefined {
  const messages = Math.floor(limit.messages * fraction);
  if (messages < 1) return undefined;
  return overWindowOf(limit, messages, Math.max(1, Math.floor(limit.burst * fraction)));
}

/** The pool: the limit less the most the local parts can hold together (`LOCAL_PART` of it, rounded down per worker). */
export function poolOf(limit: BucketLimit): BucketLimit {
  return overWindowOf(limit, Math.max(1, limit.messages - Math.floor(limit.messages * LOCAL_PART)), Math.max(1, limit.burst - Math.floor(limit.burst * LOCAL_PART)));
}

/** `messages` and `burst` over `limit`'s own window (its period stretched to keep it), so parts of one window add up. */
function overWindowOf(limit: BucketLimit, messages: number, burst: number): BucketLimit {
  const windowSecs = (Math.max(limit.messages, limit.burst) * limit.perSecs) / limit.messages;
  return { messages, perSecs: (windowSecs * messages) / Math.max(messages, burst), burst };
}
