import { throwError, timeout, type MonoTypeOperatorFunction, type SchedulerLike } from "rxjs";
import { BusTimeoutError } from "./errors.js";

/** A request's reply within `timeoutMs` of the bus scheduler's time, else `BusTimeoutError` — the same on every bus. */
export function requestTimeout<T>(subject: string, timeoutMs: number, scheduler: SchedulerLike): MonoTypeOperatorFunction<T> {
  return timeout({ first: timeoutMs, with: () => throwError(() => new BusTimeoutError(subject, timeoutMs)), scheduler });
}
