import { asyncScheduler, filter, type MonoTypeOperatorFunction, type SchedulerLike } from "rxjs";
import type { GatewayEvent } from "turnstream/operators";

/**
 * Lets through at most one event per sender every `windowMs`; the rest are dropped before a turn
 * runs. Time comes from `scheduler` (virtual in marble tests), never from `Date.now()`.
 */
export function floodGuard(windowMs: number, scheduler: SchedulerLike = asyncScheduler): MonoTypeOperatorFunction<GatewayEvent> {
  const lastAdmitted = new Map<string, number>();
  return filter((event) => {
    const now = scheduler.now();
    const sender = `${event.platform}:${event.sender.id}`;
    const last = lastAdmitted.get(sender);
    if (last !== undefined && now - last < windowMs) return false;
    lastAdmitted.set(sender, now);
    return true;
  });
}
