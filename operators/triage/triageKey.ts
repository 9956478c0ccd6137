import { compositeKey } from "../dispatch/compositeKey.js";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";

/**
 * `platform:channel.id` — whose allowance a proactive event spends. The channel, never the thread:
 * a busy channel cannot use up a DM's allowance, and threads of one channel share theirs. Each
 * part as `compositeKey` escapes it, so a `:` in a platform or channel name cannot make two
 * conversations one; plain names read as before (`telegram:c1`).
 */
export function triageKey(event: Pick<GatewayEvent, "platform" | "channel">): string {
  return compositeKey([event.platform, event.channel.id]);
}
