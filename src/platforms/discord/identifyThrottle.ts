import { setTimeout as sleep } from "node:timers/promises";

/**
 * One IDENTIFY per `intervalMs` for this port's connection (Discord's `max_concurrency` 1 allows one
 * per 5 s): @discordjs/ws's own throttler keeps its state per strategy, and a receiver stopped and
 * started again by a lease builds a new one. Time from `now`.
 */
export function identifyThrottle(intervalMs: number, now: () => number = Date.now) {
  let last = Number.NEGATIVE_INFINITY;
  return {
    async waitForIdentify(_shardId: number, signal: AbortSignal): Promise<void> {
      const wait = last + intervalMs - now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      last = now();
    },
  };
}
