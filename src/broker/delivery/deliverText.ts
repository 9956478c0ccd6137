import { concatMap, from, ignoreElements, type Observable } from "rxjs";
import { planTextReply, SILENT_FAILURE_LOG } from "../../../operators/delivery/textReply.js";
import type { TurnTranscript } from "../../../operators/delivery/turnTranscript.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Config } from "../../config/index.js";
import type { TurnContext } from "../turn.js";
import { replyMessage } from "./replyMessage.js";

export type DeliveryConfig = Pick<Config, "delivery" | "reactions">;

/** OpenAB's text path: one reply split at the platform limit, sent one message after another. */
export function deliverText(transcript: TurnTranscript, event: GatewayEvent, context: TurnContext, config: DeliveryConfig): Observable<never> {
  const plan = planTextReply(transcript, {
    toolDisplay: config.reactions.tool_display,
    keepFullText: config.reactions.narration_display,
    limit: context.messageLimit(event.platform),
  });
  if (plan.silentFailure === true) context.logger.warn({ reason: "empty_turn" }, SILENT_FAILURE_LOG);
  warnOnDeclaredSchema(plan.declaredSchema, context, config);
  return from(plan.chunks).pipe(
    concatMap((text, index) => context.send(replyMessage(event, text, index === 0 ? plan.replyTo : undefined))),
    ignoreElements(),
  );
}

/** `[[delivery:…]]` is a per-turn declaration: a mismatch is worth a warning, not a refusal. */
export function warnOnDeclaredSchema(declared: string | undefined, context: TurnContext, config: DeliveryConfig): void {
  if (declared !== undefined && declared !== config.delivery.schema) {
    context.logger.warn({ declared, configured: config.delivery.schema }, "turn declared a delivery schema this deployment does not serve");
  }
}
