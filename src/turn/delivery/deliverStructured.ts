import { catchError, concat, concatMap, defer, EMPTY, from, ignoreElements, last, tap, throwError, type Observable } from "rxjs";
import { bubbleMessages, planStructuredReply, structuredDeliveryIncomplete, type BubbleMessage } from "../../../operators/delivery/envelope/envelopeReply.js";
import { paceBubbles } from "../../../operators/delivery/flow/paceBubbles.js";
import type { TurnTranscript } from "../../../operators/delivery/turnTranscript.js";
import type { FileReadyEvent } from "../../../operators/delivery/agentEvent.js";
import { sendFile } from "./sendFile.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { untrustedName } from "../../../operators/ingress/untrustedText.js";
import { AgentTurnError, DeliveryIncompleteError } from "../../pipeline/errors.js";
import type { TurnContext } from "../turn.js";
import { wasCancelled } from "./deliverText.js";
import {
  DELIVERED_NOTHING_LOG,
  SILENT_WITH_MESSAGES_LOG,
  STRUCTURED_DELIVERED_LOG,
  STRUCTURED_PARSE_FAILED_LOG,
  STRUCTURED_SEND_FAILED_LOG,
  TOOL_OVER_ENVELOPE_LOG,
  TOOL_PROPOSAL_LOG,
} from "./deliveryLogMessages.js";
import { sendFiles, warnOnDeclaredSchema, type DeliveryConfig } from "./deliverText.js";
import { replyMessage } from "./replyMessage.js";
import { replyGaps } from "./replyPacing.js";
import { silentWithoutTheTool } from "./proactiveSilence.js";

/**
 * Structured delivery: the turn's `openab.turn.v1` envelope becomes one message per bubble, in
 * order, each leaving `bubble_delay_ms` after the previous one left, or at its ack if that is later
 * (never before it). The envelope never reaches the user; a failed send abandons the rest and fails
 * the turn without quoting any bubble.
 */
export function deliverStructured(transcript: TurnTranscript, event: GatewayEvent, context: TurnContext, config: DeliveryConfig): Observable<never> {
  return defer(() => {
    if (wasCancelled(transcript, context)) return EMPTY;
    const { delivery } = config;
    const { logger } = context;
    const plan = planStructuredReply(transcript, {
      schema: delivery.schema,
      maxBubbles: delivery.max_bubbles,
      maxBubbleChars: delivery.max_bubble_chars,
      onParseError: delivery.on_parse_error,
      parseErrorText: delivery.parse_error_text,
    });
    // A proactive turn that wrote no envelope and did not call the reply tool shaped no reply.
    if (plan.parseFailure !== undefined && plan.agentError === undefined && transcript.toolEnvelope === undefined && silentWithoutTheTool(event, context, config)) {
      return sendFiles(transcript.files.map(({ file }) => file), event, context);
    }
    if (plan.parseFailure !== undefined) {
      logger.warn({ reason: "parse_error", error: plan.parseFailure.error, policy: plan.parseFailure.policy }, STRUCTURED_PARSE_FAILED_LOG);
    }
    if (plan.fromTool === "over_envelope") logger.info({ reason: "tool_over_envelope" }, TOOL_OVER_ENVELOPE_LOG);
    if (plan.toolProposal !== undefined) logger.info({ tool: untrustedName(plan.toolProposal.name) }, TOOL_PROPOSAL_LOG); // the agent's name: bounded, cleaned
    if (plan.silenced !== undefined && plan.silenced > 0) logger.warn({ bubbles: plan.silenced }, SILENT_WITH_MESSAGES_LOG);
    warnOnDeclaredSchema(plan.declaredSchema, context, config);

    const total = plan.bubbles.length;
    if (total === 0) logger.info({ next: plan.next?.type }, DELIVERED_NOTHING_LOG);
    const byBubble = groupByBubble(bubbleMessages(plan, context.messageLimit(event.platform)));
    // The turn's files follow its bubbles (the envelope is one plan, sent once the turn ended),
    // paced as bubbles are; a turn the agent failed delivers them before its error.
    const paced: readonly (readonly BubbleMessage[] | FileReadyEvent)[] = [...byBubble, ...transcript.files.map(({ file }) => file)];
    let delivered = 0;
    const sends = from(paced).pipe(
      paceBubbles(
        (item, _index, departing) => (isFile(item) ? sendFile(context, event, item, departing) : sendMessages(context, event, item, departing).pipe(tap({ complete: () => (delivered += 1) }))),
        replyGaps(delivery, delivery.bubble_delay_ms),
        context.scheduler,
      ),
      ignoreElements(),
    );
    const sent = concat(
      sends,
      defer(() => {
        logger.debug({ platform: event.platform, bubbles: delivered }, STRUCTURED_DELIVERED_LOG);
        return EMPTY;
      }),
    );
    return concat(
      sent.pipe(
        // Re-thrown as a count, never with bubble text in it.
        catchError((cause: unknown) => {
          logger.error({ reason: "send_failed", platform: event.platform, bubble: delivered, delivered, total, err: cause }, STRUCTURED_SEND_FAILED_LOG);
          return throwError(() => new DeliveryIncompleteError(structuredDeliveryIncomplete(delivered, total), delivered, { cause }));
        }),
      ),
      // §12 (e): the agent's error fails the turn once its reply is out.
      plan.agentError === undefined ? EMPTY : throwError(() => new AgentTurnError(plan.agentError ?? "", onlyTheError(plan.bubbles, plan.agentError))),
    );
  });
}

/**
 * A bubble's messages (its chunks at the platform limit), sent in order; emits once the last is
 * acked. Each marks its departure, so the next bubble is paced from the last chunk the user saw.
 */
function sendMessages(context: TurnContext, event: GatewayEvent, messages: readonly BubbleMessage[], departing: () => void): Observable<unknown> {
  return from(messages).pipe(
    concatMap((message) =>
      defer(() => {
        departing();
        // Called again as it actually leaves (after a rate limit held it): the next bubble is paced from then.
        return context.send(replyMessage(event, message.text, message.replyTo), { departing });
      }),
    ),
    last(),
  );
}

function isFile(item: readonly BubbleMessage[] | FileReadyEvent): item is FileReadyEvent {
  return !Array.isArray(item);
}

function groupByBubble(messages: readonly BubbleMessage[]): BubbleMessage[][] {
  const groups: BubbleMessage[][] = [];
  for (const message of messages) (groups[message.bubble] ??= []).push(message);
  return groups.filter((group) => group.length > 0);
}

/** The reply was nothing but the `⚠️ <error>` bubble: the user has seen the failure already. */
function onlyTheError(bubbles: readonly string[], agentError: string | undefined): boolean {
  return agentError !== undefined && bubbles.every((bubble) => bubble.includes(agentError));
}
