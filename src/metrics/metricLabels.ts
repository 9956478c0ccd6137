import type { AgentExitCause } from "./instruments.js";

/** A send's kind, by its command (the `kind` label): what rate limits count it as too. */
export { sendKind as messageKind } from "../../operators/delivery/flow/sendKind.js";

/** The `SendError` codes turnstream itself raises, on the edge or the worker. */
export const LOCAL_SEND_FAILURES = [
  "no_gateway",
  "timeout",
  "disconnected",
  "connection_lost",
  "write_failed",
  "ack_timeout",
  "ack_channel_closed",
  "bad_reply",
  "no_message_id",
  "unsupported",
  "too_large",
  "send_failed",
] as const;

/** Every `reason` of `turnstream_send_failures_total`: turnstream's own codes, and `gateway_rejected` for whatever a gateway answered. */
export const SEND_FAILURE_REASONS = [...LOCAL_SEND_FAILURES, "gateway_rejected"] as const;
export type SendFailureReason = (typeof SEND_FAILURE_REASONS)[number];

const local: ReadonlySet<string> = new Set(LOCAL_SEND_FAILURES);

/** A send failure's label: a gateway's own error code (any string it chose) is `gateway_rejected`, so the series stay few. */
export function sendFailureReason(code: string): SendFailureReason {
  return local.has(code) ? (code as SendFailureReason) : "gateway_rejected";
}

/** How an agent process ended (see `AgentExitCause`). */
export function agentExitCause(exit: { readonly code: number | null; readonly signal: string | null }, stoppedByUs: boolean): AgentExitCause {
  if (stoppedByUs) return "stopped";
  if (exit.code === 0) return "exited";
  if (exit.code !== null) return "failed";
  return "signal";
}
