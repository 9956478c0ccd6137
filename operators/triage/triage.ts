import { map, of, type OperatorFunction } from "rxjs";
import { serializeByKey } from "../dispatch/serializeByKey.js";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { triageEvent, type TriageEventOptions } from "./triageEvent.js";
import { triageKey } from "./triageKey.js";
import { type TriageVerdict, WAKE } from "./triageVerdict.js";

export { TRIAGE_MAX_ATTEMPTS } from "./triageEvent.js";
export { TriageConflictError } from "./triageConflictError.js";

/** An event and what triage made of it; a human message is always a wake. */
export interface TriageDecision {
  readonly event: GatewayEvent;
  readonly verdict: TriageVerdict;
}

/** As `triageEvent` takes them. */
export type TriageOptions = TriageEventOptions;

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
  if (!options.settings.enabled) return map((event) => ({ event, verdict: WAKE }));
  return serializeByKey<GatewayEvent, TriageDecision>(triageKey, (event) =>
    event.proactive === true ? triageEvent(event, options).pipe(map((verdict) => ({ event, verdict }))) : of({ event, verdict: WAKE }),
  );
}
