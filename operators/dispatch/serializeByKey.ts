import { from, Observable, Subscription, type ObservableInput, type OperatorFunction } from "rxjs";
import { Fifo } from "./fifo.js";

interface Lane<T> {
  /** A Fifo, not an array: `Array#shift` on a long backlog makes draining it quadratic. */
  readonly queue: Fifo<T>;
  running: boolean;
}

/**
 * Runs `work` for each value, one at a time per key and concurrently across keys: the next value
 * of a key starts when the previous one's work completes, in arrival order. A key's lane is
 * dropped as soon as it is idle, so memory follows the keys in flight, not every key ever seen.
 *
 * Completes when the source has completed and every lane has drained; an error from the source,
 * from `keyOf` or from any work errors the output and cancels all running work.
 *
 * Hand-written rather than `groupBy` + `concatMap`: `groupBy` can only evict a group by time,
 * and evicting a key whose work is still running lets its next value overtake it.
 */
export function serializeByKey<T, R>(
  keyOf: (value: T) => string,
  work: (value: T, key: string) => ObservableInput<R>,
): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const lanes = new Map<string, Lane<T>>();
      const subscriptions = new Subscription();
      let sourceComplete = false;

      const runNext = (key: string, lane: Lane<T>): void => {
        // A loop, not recursion: a long queue of synchronous work must not grow the stack.
        while (!lane.running) {
          if (lane.queue.length === 0) {
            lanes.delete(key);
            if (sourceComplete && lanes.size === 0) subscriber.complete();
            return;
          }
          const value = lane.queue.shift() as T;
          lane.running = true;
          let synchronous = true;
          const inner = new Subscription();
          subscriptions.add(inner);
          inner.add(
            from(work(value, key)).subscribe({
              next: (result) => subscriber.next(result),
              error: (err: unknown) => subscriber.error(err),
              complete: () => {
                subscriptions.remove(inner);
                lane.running = false;
                if (!synchronous) runNext(key, lane);
              },
            }),
          );
          synchronous = false;
        }
      };

      subscriptions.add(
        source.subscribe({
          next: (value) => {
            let key: string;
            try {
              key = keyOf(value);
            } catch (err) {
              subscriber.error(err);
              return;
            }
            let lane = lanes.get(key);
            if (lane === undefined) {
              lane = { queue: new Fifo<T>(), running: false };
              lanes.set(key, lane);
            }
            lane.queue.push(value);
            if (!lane.running) runNext(key, lane);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => {
            sourceComplete = true;
            if (lanes.size === 0) subscriber.complete();
          },
        }),
      );
      return subscriptions;
    });
}
