import { from, Observable, Subscription, type ObservableInput, type OperatorFunction } from "rxjs";
import { LaneQueue, type LaneBatch, type SessionLanesOptions } from "./laneQueue.js";

export type { BatchBound, DropPolicy, LaneBatch, QueueMode, SessionLanesOptions } from "./laneQueue.js";

/**
 * One unit of work at a time per key (as `serializeByKey`), with OpenClaw's busy-session queue:
 * a value for an idle key runs at once; values that arrive while the key is busy wait, and once
 * the running work is done and no new value arrived for `quietMs`, `collect` runs them all as one
 * batch, `followup` runs them one batch each in order, `interrupt` runs only the newest (and asks
 * the running work to stop when it arrives). At most `cap` values wait; `new` refuses the
 * incoming one, `old` drops the oldest, `summarize` drops the oldest but keeps a summary line.
 * Under `collect`, `bound` caps a batch (OpenAB's batching); the rest runs as the next batch.
 *
 * The lanes themselves are `LaneQueue` (callbacks, for the worker's per-event path); this operator
 * subscribes to each batch's work and forwards what it emits. A work error or a `keyOf` that throws
 * errors the output; unsubscribing cancels the running work and the quiet-window timers.
 */
export function sessionLanes<T, R>(
  keyOf: (value: T) => string,
  work: (batch: LaneBatch<T>, key: string) => ObservableInput<R>,
  options: SessionLanesOptions<T>,
): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const running = new Subscription();
      const lanes = new LaneQueue<T>(
        keyOf,
        (batch, key, done) => {
          let inner: Subscription | undefined;
          const subscription = from(work(batch, key)).subscribe({
            next: (result) => subscriber.next(result),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              if (inner !== undefined) running.remove(inner);
              done();
            },
          });
          if (subscription.closed) return undefined;
          inner = subscription;
          running.add(subscription);
          return subscription;
        },
        options,
      );
      running.add(
        source.subscribe({
          next: (value) => {
            try {
              lanes.push(value);
            } catch (err) {
              subscriber.error(err);
            }
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => lanes.end(() => subscriber.complete()),
        }),
      );
      return () => {
        lanes.close();
        running.unsubscribe();
      };
    });
}
