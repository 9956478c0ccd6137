import type { KV } from "@nats-io/kv";
import { Observable } from "rxjs";
import { takeFrom, type RateBuckets, type Take, type TakeMode } from "../../../operators/delivery/flow/rateBuckets.js";
import { isBucketState, type BucketLimit } from "../../../operators/delivery/flow/tokenBucket.js";
import { casUpdate, KnownRecords, type KvWrites, type RecordBucket } from "./storedRecord.js";

/** Compare-and-set attempts of one batch: workers contend for one key per platform. */
const MAX_ATTEMPTS = 50;

const anyValue = (value: unknown): value is unknown => value !== undefined;

/** One take waiting for its batch. */
interface PendingTake {
  readonly limit: BucketLimit;
  readonly now: number;
  readonly mode: TakeMode;
  readonly answer: (take: Take) => void;
  readonly fail: (err: unknown) => void;
}

/**
 * The per-bot rate buckets in a NATS KV bucket every worker shares, one key per platform. A take
 * reads the bucket's state, decides with `takeFrom` and writes the state after with the revision it
 * read, again on conflict, so the workers together never take more tokens than the limit has.
 *
 * The takes a process asks for one key while a write for it is under way wait and go together in
 * the next write, in the order asked: one compare-and-set per batch instead of one per send, and
 * at most one in flight per key and process, so forty conversations answering at once contend as
 * one writer, not forty. The state this process wrote last is tried first without a read (one
 * round trip while one worker sends). Clocks are the workers' own: they must agree to within a
 * small part of the window (NTP does).
 */
export class KvRateBuckets implements RateBuckets {
  /** Values of any shape are read: one that is not a bucket state (an older build's) is taken as a full bucket and overwritten. */
  readonly #bucket: RecordBucket<unknown>;
  /** Per key: the takes waiting for the write under way (present while one is). */
  readonly #queued = new Map<string, PendingTake[]>();

  readonly #clock: () => number;

  /**
   * `writes`: how compare-and-set writes reach the bucket (default: through `kv`). `clock`: the
   * workers' shared time (default the wall clock, as the broker's scheduler keeps it): a take is
   * decided on it as each attempt is made, not on the time it was asked, so a take that queued or
   * lost a compare-and-set is not reserved in the past.
   */
  constructor(kv: KV, options: { readonly writes?: KvWrites; readonly clock?: () => number } = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#bucket = { kv, writes: options.writes ?? kv, store: "rates", isValue: anyValue, known: new KnownRecords<unknown>(64) };
  }

  take(key: string, limit: BucketLimit, now: number, mode: TakeMode): Observable<Take> {
    return new Observable<Take>((subscriber) => {
      // Once asked, a take is decided even if its caller leaves: its token may already be written.
      const pending: PendingTake = {
        limit,
        now,
        mode,
        answer: (take) => {
          subscriber.next(take);
          subscriber.complete();
        },
        fail: (err) => subscriber.error(err),
      };
      const queued = this.#queued.get(key);
      if (queued === undefined) {
        this.#queued.set(key, []);
        this.#write(key, [pending]);
      } else {
        queued.push(pending);
      }
    });
  }

  #write(key: string, batch: readonly PendingTake[]): void {
    casUpdate(
      this.#bucket,
      "take",
      key,
      (current) => {
        let state = isBucketState(current) ? current : undefined;
        let wrote = false;
        const decidedAt = this.#clock();
        const takes = batch.map(({ limit, now, mode }) => {
          const step = takeFrom(state, limit, Math.max(now, decidedAt), mode);
          if (step.take.taken) {
            state = step.state;
            wrote = true;
          }
          return step.take;
        });
        return wrote && state !== undefined ? { result: takes, next: state } : { result: takes };
      },
      MAX_ATTEMPTS,
    ).then(
      (takes) => {
        this.#next(key);
        batch.forEach((pending, i) => pending.answer(takes[i] as Take));
      },
      (err: unknown) => {
        this.#next(key);
        for (const pending of batch) pending.fail(err);
      },
    );
  }

  /** The write for `key` is done: the takes that queued meanwhile go in the next one. */
  #next(key: string): void {
    const queued = this.#queued.get(key) ?? [];
    if (queued.length === 0) {
      this.#queued.delete(key);
      return;
    }
    this.#queued.set(key, []);
    this.#write(key, queued);
  }
}
