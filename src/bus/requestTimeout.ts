import { throwError, timeout, type MonoTypeOperatorFunction, type SchedulerLike } from "rxjs";
import { BusTimeoutError } from "./errors.js";

/**
 * A request's reply within `timeoutMs` of the bus scheduler's time, else `BusTimeoutError`: the
 * operator `NatsBus` applies. `MemoryBus` keeps its own timer per pending request to the same
 * effect (same error, same clock), which the bus contract tests hold both to.
 */
export function requestTimeout<T>(subject: string, timeoutMs: number, scheduler: SchedulerLike): MonoTypeOperatorFunction<T> {
  return timeout({ first: timeoutMs, with: () => throwError(() => new BusTimeoutError(subject, timeoutMs)), scheduler });
}
