import { concat, concatMap, EMPTY, throwError, type Observable, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { sequentialBubbles, type SequentialReport } from "../../../operators/delivery/sequential/sequentialBubbles.js";
import { sequentialOutcome } from "../../../operators/delivery/sequential/sequentialOutcome.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { DeliveryIncompleteError } from "../../pipeline/errors.js";
import type { TurnContext } from "../turn.js";
import {
  SEQUENTIAL_CAPPED_LOG,
  SEQUENTIAL_CAPPED_WARNING,
  SEQUENTIAL_DELIVERED_LOG,
  SEQUENTIAL_FALLBACK_LOG,
  SEQUENTIAL_SEND_FAILED_LOG,
} from "./deliveryLogMessages.js";
import { deliverText, sendFiles, type DeliveryConfig } from "./deliverText.js";
import { silentWithoutTheTool } from "./proactiveSilence.js";
import { replyMessage } from "./replyMessage.js";
import { sendFile } from "./sendFile.js";
import { replyGaps } from "./replyPacing.js";

/**
 * Sequential delivery: every `openab_message` is sent the moment it arrives (paced from the
 * previous bubble's departure, never before its ack); a turn without any falls through to the text path exactly as text mode
 * delivers it. A failed send or an agent error after bubbles went out fails the turn; the user
 * keeps what arrived.
 */
export function deliverSequential(event: GatewayEvent, context: TurnContext, config: DeliveryConfig): OperatorFunction<AgentEvent, never> {
  return (events) =>
    events.pipe(
      sequentialBubbles({
        sendBubble: (text, _index, quote, departing) => context.send(replyMessage(event, text, quote), { departing }),
        // A file goes after the bubble it followed, paced as one.
        sendFile: (file, departing) => sendFile(context, event, file, departing),
        delayMs: replyGaps(config.delivery, config.delivery.bubble_delay_ms),
        maxBubbles: config.delivery.max_bubbles,
        limit: context.messageLimit(event.platform),
        scheduler: context.scheduler,
      }),
      concatMap((report) => settle(report, event, context, config)),
    );
}

function settle(report: SequentialReport, event: GatewayEvent, context: TurnContext, config: DeliveryConfig): Observable<never> {
  const { logger } = context;
  if (report.capped) logger.warn({ reason: "max_bubbles", dropped: report.dropped, bubble: report.firstDroppedId }, SEQUENTIAL_CAPPED_WARNING);
  const outcome = sequentialOutcome(report);
  switch (outcome.kind) {
    case "text_fallback":
      if (report.transcript.agentError === undefined && silentWithoutTheTool(event, context, config)) return files(report, event, context);
      logger.info({ reason: "no_bubbles" }, SEQUENTIAL_FALLBACK_LOG);
      return deliverText(report.transcript, event, context, config);
    case "failed":
      // The agent failed after bubbles went out: its files so far follow them. A failed send stops everything.
      if (report.failedBubbleId === undefined) {
        return concat(files(report, event, context), throwError(() => new DeliveryIncompleteError(outcome.error, report.bubblesSent, { cause: report.transcript.agentError })));
      }
      logger.error({ reason: "send_failed", bubble: report.failedBubbleId, delivered: report.bubblesSent, err: report.sendError }, SEQUENTIAL_SEND_FAILED_LOG);
      return throwError(() => new DeliveryIncompleteError(outcome.error, report.bubblesSent, { cause: report.sendError ?? report.transcript.agentError }));
    case "success":
      logger.info({ delivered: report.bubblesSent, capped: report.capped }, report.capped ? SEQUENTIAL_CAPPED_LOG : SEQUENTIAL_DELIVERED_LOG);
      return files(report, event, context);
  }
}

/**
 * The turn's files the bubbles did not take (a turn with no bubble at all: the sequence sends every
 * file of a turn that has one, in place): alone, in order.
 */
function files(report: SequentialReport, event: GatewayEvent, context: TurnContext): Observable<never> {
  return report.bubblesSent > 0 || report.filesSent > 0 ? EMPTY : sendFiles(report.transcript.files.map(({ file }) => file), event, context);
}
