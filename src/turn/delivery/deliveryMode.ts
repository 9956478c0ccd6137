import { concatMap, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { collectTranscript } from "../../../operators/delivery/collectTranscript.js";
import { warnIgnoredBubbles } from "../../../operators/delivery/sequential/warnIgnoredBubbles.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TurnContext } from "../turn.js";
import { deliverBlocks } from "./deliverBlocks.js";
import { deliverSequential } from "./deliverSequential.js";
import { deliverStreaming, type StreamingOptions } from "./deliverStreaming.js";
import { deliverStructured } from "./deliverStructured.js";
import { deliverText, type DeliveryConfig } from "./deliverText.js";
import { SEQUENTIAL_MODE_OFF_WARNING } from "./deliveryLogMessages.js";
import { replyGaps } from "./replyPacing.js";

/**
 * The configured delivery mode, as an operator over a turn's events. With streaming on, a text
 * reply streams where the platform can edit in place: without a hello as upstream does (unless
 * `withoutHello` is false: only a native platform asked to stream), and where the capabilities
 * advertise `streaming_mode = "edit"` and `can_edit` (its placeholder as its
 * `show_streaming_placeholder` says); elsewhere it is sent once, noted once per platform. A
 * conversation a native adapter found another bot in (`other_bot_present`) is sent once too, and
 * so is a proactive turn's reply: a placeholder would show before the agent decided to speak.
 */
export function deliveryOf(config: DeliveryConfig, streaming: StreamingOptions | undefined): (event: GatewayEvent, context: TurnContext) => OperatorFunction<AgentEvent, never> {
  if (streaming === undefined || config.delivery.mode !== "text") return (event, context) => deliver(event, context, config);
  const noted = new Set<string>();
  return (event, context) => {
    if (event.other_bot_present === true || event.proactive) return deliver(event, context, config);
    const capabilities = context.capabilities?.(event.platform);
    if (capabilities === undefined) return streaming.withoutHello === false ? deliver(event, context, config) : deliverStreaming(event, context, config, streaming);
    if (capabilities.streamingMode === "edit" && capabilities.canEdit) return deliverStreaming(event, context, config, { placeholder: capabilities.showStreamingPlaceholder });
    if (!noted.has(event.platform)) {
      noted.add(event.platform);
      context.logger.info({ reason: "streaming_unsupported", platform: event.platform, streamingMode: capabilities.streamingMode, canEdit: capabilities.canEdit }, "platform does not stream edits; replies are sent once");
    }
    return deliver(event, context, config);
  };
}

/** The configured delivery mode, as an operator over the turn's events. */
function deliver(event: GatewayEvent, context: TurnContext, config: DeliveryConfig): OperatorFunction<AgentEvent, never> {
  if (config.delivery.mode === "sequential") return deliverSequential(event, context, config);
  const deliverTranscript = config.delivery.mode === "structured" ? deliverStructured : deliverText;
  return (events) =>
    events.pipe(
      // Only sequential mode sends openab_message bubbles; elsewhere they are noted once and ignored.
      warnIgnoredBubbles(() => context.logger.warn({ reason: "mode_not_sequential", mode: config.delivery.mode }, SEQUENTIAL_MODE_OFF_WARNING)),
      config.delivery.blocks.enabled
        ? deliverBlocks(event, context, config, replyGaps(config.delivery, 0))
        : (turn) => turn.pipe(
            collectTranscript(),
            concatMap((transcript) => deliverTranscript(transcript, event, context, config)),
          ),
    );
}
