import type { SequentialReport } from "./sequentialBubbles.js";

/** What a finished sequential turn comes to (`delivery-and-triage.md` §12.1). */
export type SequentialOutcome =
  | { readonly kind: "success" }
  | { readonly kind: "failed"; readonly error: string }
  /** No bubble was attempted: deliver the report's transcript exactly as text mode would. */
  | { readonly kind: "text_fallback" };

/** The turn's error when a bubble send failed: `sequential delivery incomplete: <n> bubble(s) delivered`. */
export function sequentialIncompleteError(delivered: number): string {
  return `sequential delivery incomplete: ${delivered} bubble(s) delivered`;
}

/** The turn's error when the agent failed after bubbles went out: `sequential turn failed after <n> bubble(s): <error>`. */
export function sequentialAgentFailedError(delivered: number, agentError: string): string {
  return `sequential turn failed after ${delivered} bubble(s): ${agentError}`;
}

/**
 * turnstream's sequential truth table (§12.1), rows in order:
 * 1. a send failed (even the first, even with a cap or an agent error) → failed,
 *    `sequential delivery incomplete: <sent> bubble(s) delivered`; never a text fallback. When the
 *    agent also failed, the caller logs `transcript.agentError` besides;
 * 2. nothing sent (so nothing attempted) and the `reply` tool never called → the text path, which
 *    shows any agent error as `⚠️ <error>`; a turn that called the tool never has its text
 *    delivered (it replied through the tool, perhaps with nothing);
 * 3. the agent failed after ≥ 1 bubble → failed, `sequential turn failed after <sent> bubble(s): <error>`
 *    (the user keeps the bubbles; the chunk text is discarded);
 * 4. otherwise success, capped or not.
 * A `stopReason` such as `cancelled` or `max_tokens` is not an agent error.
 */
export function sequentialOutcome(report: SequentialReport): SequentialOutcome {
  const sendFailed = report.failedBubbleId !== undefined || report.sendError !== undefined;
  if (sendFailed) return { kind: "failed", error: sequentialIncompleteError(report.bubblesSent) };
  if (report.bubblesSent === 0 && report.transcript.replyCalls === 0) return { kind: "text_fallback" };
  const { agentError } = report.transcript;
  if (agentError !== undefined) return { kind: "failed", error: sequentialAgentFailedError(report.bubblesSent, agentError) };
  return { kind: "success" };
}
