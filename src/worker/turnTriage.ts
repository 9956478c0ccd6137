import type { SchedulerLike, Unsubscribable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { triageEvent } from "../../operators/triage/triageEvent.js";
import { triageNow } from "../../operators/triage/triageNow.js";
import type { TriageVerdict } from "../../operators/triage/triageVerdict.js";
import type { TurnTriage } from "../turn/turn.js";

/**
 * Triage of one proactive event a turn's stage let through: `verdict` is told the store's verdict,
 * `error` its failure. A store in this process's memory decides within the call: no stream per
 * proactive event. Returns what still runs when it does not, to cancel with the turn.
 */
export function triageTurnEvent(
  event: GatewayEvent,
  triage: TurnTriage & { readonly scheduler?: SchedulerLike },
  verdict: (verdict: TriageVerdict) => void,
  error: (err: unknown) => void,
): Unsubscribable | undefined {
  let now: TriageVerdict | undefined;
  try {
    now = triageNow(event, triage);
  } catch (err) {
    error(err);
    return undefined;
  }
  if (now !== undefined) {
    verdict(now);
    return undefined;
  }
  return triageEvent(event, triage).subscribe({ next: verdict, error });
}
