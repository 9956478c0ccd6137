import { asyncScheduler, type SchedulerLike } from "rxjs";

const MINUTE_MS = 60_000;

/**
 * A wall clock that runs `speed` times faster than real time, starting `leadMs` of its own time
 * before the next minute boundary: real timers, their delays divided by `speed`. `[cron]` read
 * from it (BrokerOptions.cronScheduler) fires a `* * * * *` job every 60 / speed real seconds,
 * so a suite over real sockets sees minutes go by without waiting for them.
 */
export function fastClock(speed: number, leadMs = 2_000): SchedulerLike {
  const realStart = Date.now();
  const start = Math.ceil(realStart / MINUTE_MS) * MINUTE_MS + MINUTE_MS - leadMs;
  return {
    now: () => start + (Date.now() - realStart) * speed,
    schedule: (work: Parameters<SchedulerLike["schedule"]>[0], delay = 0, state?: unknown) => asyncScheduler.schedule(work as never, delay / speed, state),
  };
}
