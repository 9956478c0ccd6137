import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { DISCORD } from "./messageEvent.js";
import { interactionEventId, snowflakeTime } from "./slashCommands.js";
import { tapHandle, type TapHandle } from "./tapHandle.js";
import type { TapVerdict } from "./tapVerdict.js";

/**
 * A tap as the broker's event: its own id (`dci<interaction id>`, a fresh one per tap), who tapped,
 * the conversation and the message the button is on, no text, and the tap: the handle to answer
 * it with and the button's data.
 */
export function tapEvent(interactionId: string, handle: TapHandle, tap: Extract<TapVerdict, { kind: "accept" }>): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: interactionEventId(interactionId),
    timestamp: snowflakeTime(interactionId),
    platform: DISCORD,
    channel: tap.channel,
    sender: tap.sender,
    content: { type: "text", text: "" },
    mentions: [],
    message_id: tap.messageId,
    proactive: false,
    tap: { id: tapHandle(handle), data: tap.data },
  };
}
