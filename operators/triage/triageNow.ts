import { asyncScheduler } from "rxjs";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { admit } from "./admit.js";
import { TriageConflictError } from "./triageConflictError.js";
import { TRIAGE_MAX_ATTEMPTS, type TriageEventOptions } from "./triageEvent.js";
import { triageKey } from "./triageKey.js";
import { EMPTY_TRIAGE_STATE, sameTriageState } from "./triageState.js";
import { type TriageVerdict, WAKE } from "./triageVerdict.js";

/**
 * `triageEvent` answered within the call, for a store that offers `readNow` and
 * `compareAndSetNow` (one in this process's memory): the same read → `admit` → compareAndSet
 * (skipped when nothing changed), re-decided on a lost compareAndSet, on the same clock — with no
 * stream per proactive event. `undefined` when the store cannot answer within the call: use
 * `triageEvent` then.
 *
 * Throws what the store throws, or `TriageConflictError` after `maxAttempts` conflicts in a row.
 */
export function triageNow(event: GatewayEvent, options: TriageEventOptions): TriageVerdict | undefined {
  if (event.proactive !== true || !options.settings.enabled) return WAKE;
  const { store, settings } = options;
  if (store.readNow === undefined || store.compareAndSetNow === undefined) return undefined;
  const key = triageKey(event);
  const scheduler = options.scheduler ?? asyncScheduler;
  const maxAttempts = options.maxAttempts ?? TRIAGE_MAX_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    const entry = store.readNow(key);
    const before = entry?.state ?? EMPTY_TRIAGE_STATE;
    const { verdict, state } = admit(before, event.event_id, settings, scheduler.now());
    if (sameTriageState(before, state) || store.compareAndSetNow(key, state, entry?.revision)) return verdict;
    if (attempt >= maxAttempts) throw new TriageConflictError(key, attempt);
  }
}
