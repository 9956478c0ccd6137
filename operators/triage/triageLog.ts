import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { idHash } from "./idHash.js";
import type { SuppressReason, TriageVerdict } from "./triageVerdict.js";

/** The stable fields of a triage log line, in upstream's order. */
export type TriageLogFields =
  | { readonly decision: "wake"; readonly platform: string; readonly event_id: string; readonly channel: string }
  | {
      readonly decision: "suppressed";
      readonly reason: SuppressReason;
      readonly platform: string;
      readonly event_id: string;
      readonly channel: string;
      readonly detail: string;
    };

/**
 * The fields for `verdict` on `event` (§13.5). `channel` is the channel id, except an ACP id
 * (`acp_<uuid>`), which is logged as `acp_#<idHash>` so conversations stay tellable apart.
 */
export function triageLogFields(event: Pick<GatewayEvent, "platform" | "event_id" | "channel">, verdict: TriageVerdict): TriageLogFields {
  const where = { platform: event.platform, event_id: event.event_id, channel: logChannel(event.channel.id) };
  if (verdict.decision === "wake") return { decision: "wake", ...where };
  return { decision: "suppressed", reason: verdict.reason, ...where, detail: verdict.detail };
}

/**
 * The fields of the info line to write for one triage decision, or `undefined` for a human
 * message, which triage never judges. A proactive event is logged even with triage disabled (it
 * is admitted). The caller picks the line's `msg` from `decision`.
 */
export function triageLogLine(decision: {
  readonly event: Pick<GatewayEvent, "platform" | "event_id" | "channel" | "proactive">;
  readonly verdict: TriageVerdict;
}): TriageLogFields | undefined {
  if (decision.event.proactive !== true) return undefined;
  return triageLogFields(decision.event, decision.verdict);
}

function logChannel(id: string): string {
  return id.startsWith("acp_") ? `acp_#${idHash(id)}` : id;
}
