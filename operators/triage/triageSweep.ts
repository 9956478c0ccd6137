import { asyncScheduler, exhaustMap, interval, type Observable, type SchedulerLike } from "rxjs";
import type { TriageStore } from "./triageStore.js";

/** How often stale conversations are swept: the session pool's housekeeping interval. */
export const TRIAGE_SWEEP_INTERVAL_MS = 60_000;

export interface TriageSweepOptions {
  /** A conversation with no activity for this long is forgotten (the pool's `session_ttl`). */
  readonly ttlMs: number;
  readonly intervalMs?: number;
  /** The clock and the timer; defaults to `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Every `intervalMs` (first after one interval), sweeps conversations idle for more than `ttlMs`
 * of scheduler time out of `store` and emits how many went. A sweep still running when the next
 * tick comes makes that tick a no-op. Never completes; unsubscribe to stop.
 */
export function sweepTriage(store: TriageStore, options: TriageSweepOptions): Observable<number> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return interval(options.intervalMs ?? TRIAGE_SWEEP_INTERVAL_MS, scheduler).pipe(exhaustMap(() => store.sweep(scheduler.now() - options.ttlMs)));
}
