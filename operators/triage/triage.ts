import { asyncScheduler, concatMap, map, type Observable, of, type OperatorFunction, type SchedulerLike, throwError } from "rxjs";
import type { TriageStore } from "./triageStore.js";
import { serializeByKey } from "../dispatch/serializeByKey.js";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { admit } from "./admit.js";
import { triageKey } from "./triageKey.js";
import type { TriageSettings } from "./triageSettings.js";
import { EMPTY_TRIAGE_STATE, sameTriageState } from "./triageState.js";
import { type TriageVerdict, WAKE } from "./triageVerdict.js";

/** An event and what triage made of it; a human message is always a wake. */
export interface TriageDecision {
  readonly event: GatewayEvent;
  readonly verdict: TriageVerdict;
}

export interface TriageOptions {
  readonly settings: TriageSettings;
  readonly store: TriageStore;
  /** The clock (`scheduler.now()`); defaults to `asyncScheduler`, virtual inside `TestScheduler.run`. */
  readonly scheduler?: SchedulerLike;
  /** Evaluations (read → admit → compareAndSet) per event before giving up; default `TRIAGE_MAX_ATTEMPTS`. */
  readonly maxAttempts?: number;
}

/** Conflicts come only from other workers writing the same conversation; ten in a row is contention, not bad luck. */
export const TRIAGE_MAX_ATTEMPTS = 10;

/** Every attempt to store a conversation's triage state lost a race to another writer. */
export class TriageConflictError extends Error {
  override readonly name = "TriageConflictError";
  constructor(
    readonly key: string,
    readonly attempts: number,
  ) {
    super(`triage state of ${key} changed under every one of ${attempts} attempts`);
  }
}

/**
 * Triages proactive events (delivery-and-triage.md §13): one decision per event, in order per
 * `triageKey`. Runs after the trust gate, before dispatch; a suppressed event must be dropped.
 *
 * - `proactive !== true` (a human message) → wake; the store is not touched.
 * - Triage disabled → every event wakes; nothing is read or written.
 * - Otherwise: read the conversation, `admit` at `scheduler.now()`, then compareAndSet the new
 *   state (skipped when nothing changed). A conflict re-reads and re-decides. Evaluations of one
 *   key run one at a time in arrival order (human messages keep their place in that lane), keys
 *   concurrently; so two events arriving together cannot both pass a cooldown that allows one.
 *
 * Errors: a store error, or `maxAttempts` conflicts in a row (TriageConflictError), errors the
 * output like any operator. No verdict is invented for an event triage could not decide: a wake
 * could flood a contended conversation, and a suppression would log a reason that is not true.
 * Run it per event (as the broker's stages do) to settle such an event and keep the stream alive.
 */
export function triage(options: TriageOptions): OperatorFunction<GatewayEvent, TriageDecision> {
  const { settings, store } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  const maxAttempts = options.maxAttempts ?? TRIAGE_MAX_ATTEMPTS;
  if (!settings.enabled) return map((event) => ({ event, verdict: WAKE }));

  const evaluate = (event: GatewayEvent, key: string, attempt: number): Observable<TriageVerdict> =>
    store.read(key).pipe(
      concatMap((entry) => {
        const before = entry?.state ?? EMPTY_TRIAGE_STATE;
        const { verdict, state } = admit(before, event.event_id, settings, scheduler.now());
        if (sameTriageState(before, state)) return of(verdict);
        return store.compareAndSet(key, state, entry?.revision).pipe(
          concatMap((written) => {
            if (written) return of(verdict);
            if (attempt >= maxAttempts) return throwError(() => new TriageConflictError(key, attempt));
            return evaluate(event, key, attempt + 1);
          }),
        );
      }),
    );

  return serializeByKey<GatewayEvent, TriageDecision>(triageKey, (event, key) =>
    event.proactive === true ? evaluate(event, key, 1).pipe(map((verdict) => ({ event, verdict }))) : of({ event, verdict: WAKE }),
  );
}
