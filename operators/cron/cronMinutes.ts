import { asyncScheduler, concatMap, defer, type Observable, repeat, type SchedulerLike, timer } from "rxjs";

const MINUTE_MS = 60_000;

/**
 * The start (ms) of each UTC minute, on the scheduler's clock: first the boundary at or after the
 * time of subscription, emitted at that boundary (upstream aligns to the minute, then ticks every
 * 60 s), then every boundary after, each as the clock reaches it. A late tick or a clock that jumps
 * ahead emits every boundary it passed, in order, at once: a minute is never skipped — a skipped
 * minute is a lost firing, while the firing's durable msg-id (job + minute) makes a repeat harmless —
 * and never emitted twice, not even when the clock goes back. Time is `scheduler.now()` only.
 */
export function cronMinutes(scheduler: SchedulerLike = asyncScheduler): Observable<number> {
  return defer(() => {
    let next = Math.ceil(scheduler.now() / MINUTE_MS) * MINUTE_MS;
    const due = (): number[] => {
      const boundaries: number[] = [];
      for (const now = scheduler.now(); next <= now; next += MINUTE_MS) boundaries.push(next);
      return boundaries;
    };
    // One timer per wait, re-armed from the clock each time, so lateness never accumulates.
    return defer(() => timer(Math.max(0, next - scheduler.now()), scheduler)).pipe(repeat(), concatMap(due));
  });
}
