import type { TriageLogFields } from "../../operators/triage/triageLog.js";

// The `msg` of the info line for each triage decision (upstream's strings, §13.5). Operators
// return the fields (`triageLogLine`); src/ says them. Stable: alerts and the bubble test grep them.

/** `msg` of the info line for a proactive event triage let through. */
export const TRIAGE_WAKE_LOG = "proactive event admitted by triage";

/** `msg` of the info line for a proactive event triage dropped. */
export const TRIAGE_SUPPRESS_LOG = "proactive event suppressed by triage";

/** The `msg` for a decision's log fields. */
export function triageLogMessage(fields: Pick<TriageLogFields, "decision">): string {
  return fields.decision === "wake" ? TRIAGE_WAKE_LOG : TRIAGE_SUPPRESS_LOG;
}
