import type { SchedulerAction, SchedulerLike, Subscription } from "rxjs";

/**
 * Schedulers around a TestScheduler for cronMinutes' specs: virtual time starts at 0, and a real
 * clock starts in 2026, runs late and jumps.
 */
export interface Clock {
  /** What `now()` adds to the inner scheduler's time at inner time `innerNow`. */
  readonly skew?: (innerNow: number) => number;
  /** Extra delay for the `index`th action scheduled (0-based): a tick that comes late. */
  readonly lateness?: (index: number) => number;
}

export function clockOn(inner: SchedulerLike, clock: Clock): SchedulerLike {
  let scheduled = 0;
  return {
    now: () => inner.now() + (clock.skew?.(inner.now()) ?? 0),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      return inner.schedule(work, delay + (clock.lateness?.(scheduled++) ?? 0), state);
    },
  };
}

/** A clock that reads `epochMs` at virtual time 0. */
export const startingAt = (inner: SchedulerLike, epochMs: number) => clockOn(inner, { skew: () => epochMs });
