import { asyncScheduler, Observable, type MonoTypeOperatorFunction, type SchedulerLike, type Subscription } from "rxjs";
import { bucketFull, departure, type BucketLimit, type BucketState } from "./tokenBucket.js";

/** One bucket a value counts against: its key (a conversation, a group, the bot) and its limit. */
export interface BucketRef {
  readonly key: string;
  readonly limit: BucketLimit;
}

export interface RateLimitedOptions<T> {
  /** The buckets a value takes a token from; none: it goes at once. */
  readonly buckets: (value: T) => readonly BucketRef[];
  readonly scheduler?: SchedulerLike;
  /** Buckets remembered at once; past it, the full ones are forgotten (a full bucket is as good as a new one). Default 10,000. */
  readonly maxKeys?: number;
}

/**
 * Holds each value until every bucket it counts against has a token for it, then emits it: values
 * wait for tokens instead of being refused. A value's departure is reserved when it arrives, so
 * values of one bucket leave in arrival order and values that share no bucket do not wait for
 * each other. Time comes from `scheduler`; memory is bounded by `maxKeys`.
 */
export function rateLimited<T>(options: RateLimitedOptions<T>): MonoTypeOperatorFunction<T> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const maxKeys = options.maxKeys ?? 10_000;
  return (source) =>
    new Observable<T>((subscriber) => {
      const states = new Map<string, { state: BucketState; limit: BucketLimit }>();
      let waiting = 0;
      let sourceDone = false;
      const timers = new Set<Subscription>();
      const forgetFull = (now: number): void => {
        for (const [key, { state, limit }] of states) if (bucketFull(state, limit, now)) states.delete(key);
      };
      const source$ = source.subscribe({
        next: (value) => {
          let refs: readonly BucketRef[];
          try {
            refs = options.buckets(value);
          } catch (err) {
            subscriber.error(err);
            return;
          }
          const now = scheduler.now();
          const { at, states: taken } = departure(
            refs.map(({ key, limit }) => ({ state: states.get(key)?.state, limit })),
            now,
          );
          refs.forEach(({ key, limit }, i) => states.set(key, { state: taken[i] as BucketState, limit }));
          if (states.size > maxKeys) forgetFull(now);
          if (at <= now) {
            subscriber.next(value);
            return;
          }
          waiting += 1;
          const timer = scheduler.schedule(() => {
            timers.delete(timer);
            waiting -= 1;
            subscriber.next(value);
            if (sourceDone && waiting === 0) subscriber.complete();
          }, at - now);
          timers.add(timer);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          if (waiting === 0) subscriber.complete();
        },
      });
      return () => {
        source$.unsubscribe();
        for (const timer of timers) timer.unsubscribe();
      };
    });
}
