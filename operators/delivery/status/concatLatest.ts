import { from, Observable, type ObservableInput, type OperatorFunction, type Subscription } from "rxjs";

/**
 * `concatMap`, except that a value `droppable` says may go is replaced by a newer droppable one
 * while it waits: work runs one value at a time, in order, and what waits is every value that
 * must run plus at most one droppable value after the last of them. For edits of one message —
 * only the newest waiting edit matters — between steps that must each happen (post, final).
 * Completes once the source has and the last work is done; an error from either is the result's.
 */
export function concatLatest<T, R>(work: (value: T) => ObservableInput<R>, droppable: (value: T) => boolean): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const waiting: T[] = [];
      let running: Subscription | undefined;
      let sourceDone = false;
      const next = (): void => {
        while (running === undefined) {
          if (waiting.length === 0) {
            if (sourceDone) subscriber.complete();
            return;
          }
          const value = waiting.shift() as T;
          let finished = false;
          let inCall = true;
          const subscription = from(work(value)).subscribe({
            next: (result) => subscriber.next(result),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              finished = true;
              if (inCall) return;
              running = undefined;
              next();
            },
          });
          inCall = false;
          // Work that finished within the call leaves nothing running: the loop takes the next value.
          if (!finished) running = subscription;
        }
      };
      const upstream = source.subscribe({
        next: (value) => {
          const last = waiting.length - 1;
          if (last >= 0 && droppable(value) && droppable(waiting[last] as T)) waiting[last] = value;
          else waiting.push(value);
          next();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          next();
        },
      });
      return () => {
        upstream.unsubscribe();
        running?.unsubscribe();
      };
    });
}
