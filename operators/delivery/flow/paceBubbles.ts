import { asyncScheduler, concatMap, defer, timer, type Observable, type OperatorFunction, type SchedulerLike } from "rxjs";

/**
 * Sends bubbles one at a time, paced from departure: bubble N+1 leaves at max(bubble N's ack,
 * bubble N's departure + `delayMs`) — never before the previous send completed (was acked), so
 * order holds on the wire, and with fast acks the user sees gaps of `delayMs`, not `delayMs` plus
 * a round trip. A bubble that arrives later than that leaves at once. `send` is called as its
 * bubble departs, and its Observable subscribed at once; a bubble's departure is that moment, or —
 * for a bubble sent as several messages — the last time its send called `departing()` (call it as
 * each message leaves, so the gap counts from the last one the user saw). Emits what each send
 * emits. A failed send (or a `send` that throws) errors the output and abandons the rest. Time
 * comes from `scheduler`, so marble tests assert the gaps exactly. `delayMs` may differ per bubble:
 * a function of the bubble's index gives the gap before it (index 0's is never waited).
 */
export function paceBubbles<T, R>(
  send: (bubble: T, index: number, departing: () => void) => Observable<R>,
  delayMs: number | ((index: number) => number),
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, R> {
  return (bubbles) =>
    defer(() => {
      // Per subscription: each turn paces from its own departures.
      let departedAt: number | undefined;
      const departing = (): void => {
        departedAt = scheduler.now();
      };
      // concatMap calls its project only once the previous inner completed, right before it
      // subscribes the new one: the bubble departs here, with no `defer` of its own per bubble.
      const depart = (bubble: T, index: number): Observable<R> => {
        departing();
        return send(bubble, index, departing);
      };
      return bubbles.pipe(
        // concatMap holds each bubble until the previous send completed: the ack is the lower bound.
        concatMap((bubble, index) => {
          if (departedAt === undefined) return depart(bubble, index);
          const gap = typeof delayMs === "number" ? delayMs : delayMs(index);
          // Capped at the gap so a wall clock stepped back cannot hold a bubble for longer.
          const wait = Math.min(gap, departedAt + gap - scheduler.now());
          return wait > 0 ? timer(wait, scheduler).pipe(concatMap(() => depart(bubble, index))) : depart(bubble, index);
        }),
      );
    });
}
