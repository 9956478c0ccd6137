import { concat, defer, EMPTY, filter, ignoreElements, map, tap, type Observable, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { coalesceBlocks, coalesceJoiner } from "../../../operators/delivery/blocks/coalesceBlocks.js";
import { paceBubbles } from "../../../operators/delivery/flow/paceBubbles.js";
import { textBlocks, type TextBlockStep } from "../../../operators/delivery/blocks/textBlocks.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TurnContext } from "../turn.js";
import { BLOCKS_DELIVERED_LOG } from "./deliveryLogMessages.js";
import { deliverText, sendFiles, wasCancelled, type DeliveryConfig } from "./deliverText.js";
import { replyMessage } from "./replyMessage.js";

type EndStep = Extract<TextBlockStep, { kind: "end" }>;

/**
 * Block streaming (`[delivery.blocks] enabled`, text mode): the reply goes out as blocks while the
 * agent writes it — cut by `textBlocks`, small ones joined by `coalesceBlocks`, each message after
 * the previous one's ack and `gap` after its departure (`[delivery] human_delay`). The chunker's
 * and coalescer's sizes are clamped to the platform limit. A reply nothing was cut from before
 * the turn ended (short, silent, empty, failed) is delivered by the text path, as in text mode;
 * after blocks, nothing is sent again but an agent error (`⚠️ <error>`), which ends the reply.
 */
export function deliverBlocks(event: GatewayEvent, context: TurnContext, config: DeliveryConfig, gap: number | ((index: number) => number)): OperatorFunction<AgentEvent, never> {
  const { blocks } = config.delivery;
  return (events) =>
    defer(() => {
      // max_chars bounds the message as sent: the response prefix counts in it (config refuses one that leaves no room).
      const room = context.styleChars ?? 0;
      const maxChars = Math.max(1, Math.min(blocks.max_chars - room, context.messageLimit(event.platform)));
      const minChars = Math.min(blocks.min_chars, maxChars);
      const coalesceMax = blocks.coalesce.max_chars === undefined ? maxChars : Math.max(1, Math.min(blocks.coalesce.max_chars - room, maxChars));
      let end: EndStep | undefined;
      let quote: string | undefined;
      let sent = 0;
      const sends = events.pipe(
        textBlocks({
          chunker: { minChars, maxChars, breakPreference: blocks.break_preference },
          break: blocks.break,
          ...(config.silent.enabled ? { silent: { token: config.silent.token, reportToken: config.silent.report_token, proactive: event.proactive } } : {}),
        }),
        tap((step) => {
          if (step.kind === "end") end = step;
          else quote ??= step.quote;
        }),
        filter((step): step is Extract<TextBlockStep, { kind: "block" }> => step.kind === "block"),
        map((step) => step.text),
        coalesceBlocks({
          idleMs: blocks.coalesce.idle_ms,
          minChars: blocks.coalesce.min_chars ?? minChars,
          maxChars: coalesceMax,
          joiner: coalesceJoiner(blocks.break_preference),
          scheduler: context.scheduler,
        }),
        paceBubbles(
          (text, index, departing) => {
            sent = index + 1;
            // Called again as it really leaves (a rate limit held it): the next gap counts from then.
            return context.send(replyMessage(event, text, index === 0 ? quote : undefined), { departing });
          },
          gap,
          context.scheduler,
        ),
        ignoreElements(),
      );
      return concat(
        sends,
        defer(() => (end === undefined ? EMPTY : finish(end, sent, event, context, config))),
      );
    });
}

/** After the blocks: the text path when none was cut, the agent's error when it failed, else nothing. */
function finish(end: EndStep, sent: number, event: GatewayEvent, context: TurnContext, config: DeliveryConfig): Observable<never> {
  if (!end.streamed) return deliverText(end.transcript, event, context, config);
  if (wasCancelled(end.transcript, context)) return EMPTY;
  context.logger.debug({ platform: event.platform, delivered: sent }, BLOCKS_DELIVERED_LOG);
  const { agentError } = end.transcript;
  // The turn's files follow its blocks (the blocks went out as they were written).
  const files = sendFiles(end.transcript.files.map(({ file }) => file), event, context);
  return agentError === undefined ? files : concat(files, context.send(replyMessage(event, `⚠️ ${agentError}`, undefined)).pipe(ignoreElements()));
}
