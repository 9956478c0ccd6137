import { asyncScheduler, concatMap, defer, tap, timer, type Observable, type OperatorFunction, type SchedulerLike } from "rxjs";

/**
 * Sends bubbles one at a time: bubble N+1 leaves `delayMs` after bubble N's send completed (was
 * acked) — or at once when it arrives later than that, so a bubble decided slowly is not held back
 * further. Emits what each send emits. A failed send errors the output and abandons the rest.
 * Time comes from `scheduler`, so marble tests assert the gaps exactly.
 */
export function paceBubbles<T, R>(
  send: (bubble: T, index: number) => Observable<R>,
  delayMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, R> {
  return (bubbles) =>
    defer(() => {
      let lastAckAt: number | undefined;
      const sendAndMark = (bubble: T, index: number): Observable<R> =>
        send(bubble, index).pipe(tap({ complete: () => (lastAckAt = scheduler.now()) }));
      return bubbles.pipe(
        concatMap((bubble, index) => {
          const wait = lastAckAt === undefined ? 0 : lastAckAt + delayMs - scheduler.now();
          return wait > 0 ? timer(wait, scheduler).pipe(concatMap(() => sendAndMark(bubble, index))) : sendAndMark(bubble, index);
        }),
      );
    });
}
