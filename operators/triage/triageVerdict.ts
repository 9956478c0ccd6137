/** Why triage dropped a proactive event. Stable tags: dashboards and alerts key on them. */
export type SuppressReason = "duplicate" | "quiet_hours" | "cooldown" | "daily_cap";

/** Dispatch the event; the agent decides for itself whether to speak. */
export interface TriageWake {
  readonly decision: "wake";
}

/** Drop the event; the agent is never told. `detail` is display text and may be reworded. */
export type TriageSuppress =
  | { readonly decision: "suppressed"; readonly reason: "duplicate"; readonly detail: string }
  | { readonly decision: "suppressed"; readonly reason: "quiet_hours"; readonly detail: string }
  | { readonly decision: "suppressed"; readonly reason: "cooldown"; readonly remainingSecs: number; readonly detail: string }
  | { readonly decision: "suppressed"; readonly reason: "daily_cap"; readonly cap: number; readonly detail: string };

export type TriageVerdict = TriageWake | TriageSuppress;

export const WAKE: TriageWake = Object.freeze({ decision: "wake" });

/** This `event_id` was already seen inside the dedupe window. */
export const DUPLICATE: TriageSuppress = Object.freeze({ decision: "suppressed", reason: "duplicate", detail: "duplicate event" });

/** The local time is inside the quiet window. */
export const QUIET_HOURS: TriageSuppress = Object.freeze({ decision: "suppressed", reason: "quiet_hours", detail: "inside quiet hours" });

/** Too soon after this conversation's last wake. */
export function cooldownVerdict(remainingSecs: number): TriageSuppress {
  return { decision: "suppressed", reason: "cooldown", remainingSecs, detail: `cooldown (${remainingSecs}s remaining)` };
}

/** This conversation used its allowance for the local day. */
export function dailyCapVerdict(cap: number): TriageSuppress {
  return { decision: "suppressed", reason: "daily_cap", cap, detail: `daily cap of ${cap} reached` };
}
