import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TurnContext } from "../turn.js";
import type { DeliveryConfig } from "./deliverText.js";
import { PROACTIVE_NOT_CALLED_LOG } from "./deliveryLogMessages.js";

/**
 * Whether a proactive turn that was offered the `reply` tool and did not call it says nothing
 * (issue 40: a reply tool never called is silence). Only where the mode's own rules would show
 * something the agent did not shape as a reply: structured text with no envelope (`on_parse_error`
 * would post it), sequential with no bubbles (the text path would post it). Logged when it does.
 */
export function silentWithoutTheTool(event: GatewayEvent, context: TurnContext, config: DeliveryConfig): boolean {
  if (!event.proactive || config.delivery.reply_tool === "off" || config.delivery.mode === "text") return false;
  context.logger.info({ reason: "reply_tool_not_called", mode: config.delivery.mode }, PROACTIVE_NOT_CALLED_LOG);
  return true;
}
