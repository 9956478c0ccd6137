import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { compositeKey } from "./compositeKey.js";
import { sessionKey } from "./sessionKey.js";

/** `[gateway] message_processing_mode`: how arrivals are grouped into batches (OpenAB §13). */
export type ProcessingMode = "per-message" | "per-thread" | "per-lane";

/**
 * The lane an event waits in for its turn: its session key, or under `per-lane` one lane per
 * sender in the session (`<session key>:@<sender id>`, the id escaped as `compositeKey` does).
 * Lanes of one session still share its ACP session, whose pool runs one turn at a time. The `@`
 * keeps a sender's lane apart from any other lane a worker builds on a session key.
 *
 * A cron job's firing waits in the job's own lane (`cron:<job>`, two parts where a session's key
 * has three): a job's firings run one at a time, so one still running when the next is due is
 * known (upstream skips that one), and never behind the turns of the conversation they speak in.
 */
export function dispatchKey(event: Pick<GatewayEvent, "platform" | "channel" | "sender" | "cron">, mode: ProcessingMode): string {
  if (event.cron !== undefined) return compositeKey(["cron", event.cron.job]);
  const key = sessionKey(event);
  return mode === "per-lane" ? `${key}:${compositeKey([`@${event.sender.id}`])}` : key;
}
