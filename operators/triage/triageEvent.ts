import { asyncScheduler, concatMap, type Observable, of, type SchedulerLike, throwError } from "rxjs";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { admit } from "./admit.js";
import { TriageConflictError } from "./triageConflictError.js";
import { triageKey } from "./triageKey.js";
import type { TriageSettings } from "./triageSettings.js";
import { EMPTY_TRIAGE_STATE, sameTriageState } from "./triageState.js";
import type { TriageStore } from "./triageStore.js";
import { type TriageVerdict, WAKE } from "./triageVerdict.js";

export interface TriageEventOptions {
  readonly settings: TriageSettings;
  readonly store: TriageStore;
  /** The clock (`scheduler.now()`); defaults to `asyncScheduler`, virtual inside `TestScheduler.run`. */
  readonly scheduler?: SchedulerLike;
  /** Evaluations (read → admit → compareAndSet) before giving up; default `TRIAGE_MAX_ATTEMPTS`. */
  readonly maxAttempts?: number;
}

/** Conflicts come only from other workers writing the same conversation; ten in a row is contention, not bad luck. */
export const TRIAGE_MAX_ATTEMPTS = 10;

/**
 * One event's verdict, for a caller that already runs a conversation's events one at a time (the
 * broker's session lane; `triage` serializes by `triageKey` itself and calls this):
 *
 * - `proactive !== true` (a human message), or triage disabled → wake; the store is not touched.
 * - Otherwise read the conversation, `admit` at `scheduler.now()`, then compareAndSet the new
 *   state (skipped when nothing changed). A conflict (another writer) re-reads and re-decides.
 *
 * Errors: a store error, or `maxAttempts` conflicts in a row (`TriageConflictError`). No verdict
 * is invented for an event that could not be decided.
 */
export function triageEvent(event: GatewayEvent, options: TriageEventOptions): Observable<TriageVerdict> {
  const { settings, store } = options;
  if (event.proactive !== true || !settings.enabled) return of(WAKE);
  const scheduler = options.scheduler ?? asyncScheduler;
  const maxAttempts = options.maxAttempts ?? TRIAGE_MAX_ATTEMPTS;
  const key = triageKey(event);
  const evaluate = (attempt: number): Observable<TriageVerdict> =>
    store.read(key).pipe(
      concatMap((entry) => {
        const before = entry?.state ?? EMPTY_TRIAGE_STATE;
        const { verdict, state } = admit(before, event.event_id, settings, scheduler.now());
        if (sameTriageState(before, state)) return of(verdict);
        return store.compareAndSet(key, state, entry?.revision).pipe(
          concatMap((written) => {
            if (written) return of(verdict);
            if (attempt >= maxAttempts) return throwError(() => new TriageConflictError(key, attempt));
            return evaluate(attempt + 1);
          }),
        );
      }),
    );
  return evaluate(1);
}
