import { catchError, concat, concatMap, defer, from, ignoreElements, map, throwError, type Observable } from "rxjs";
import { collectTranscript } from "../../operators/delivery/collectTranscript.js";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { planTextReply, SILENT_FAILURE_LOG } from "../../operators/delivery/textReply.js";
import type { TurnTranscript } from "../../operators/delivery/turnTranscript.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { packPrompt } from "../../operators/ingress/packPrompt.js";
import { cancelReply, resetReply, slashCommand } from "../../operators/ingress/slashCommand.js";
import type { SessionPool } from "../acp/pool.js";
import type { Config } from "../config/index.js";
import { SendError } from "../pipeline/errors.js";
import type { TurnContext, TurnHandler } from "./turn.js";

export interface AgentTurnHandlerOptions {
  readonly pool: SessionPool;
  readonly config: Pick<Config, "delivery" | "reactions">;
}

/**
 * The broker's default turn handler: `/reset` and `/cancel` as OpenAB answers them, and every
 * other event as one ACP prompt turn on the session pool, delivered as text — the turn's reply
 * split at the platform's limit and sent one message after another, each after the previous ack.
 */
export function createAgentTurnHandler({ pool, config }: AgentTurnHandlerOptions): TurnHandler {
  const handler: TurnHandler = ({ sessionKey, event }, context) => {
    switch (slashCommand(event.content.text)) {
      case "cancel":
        return defer(() => sendText(context, event, cancelReply({ kind: pool.cancel(sessionKey) ? "sent" : "no_turn" })));
      case "reset":
        return from(pool.reset(sessionKey)).pipe(concatMap((hadSession) => sendText(context, event, resetReply({ sessionReset: hadSession, dropped: 0 }))));
      default:
        return pool
          .withSession(sessionKey, (session) =>
            session.prompt(packPrompt(event, new Date(context.scheduler.now()).toISOString())).pipe(
              collectTranscript(),
              concatMap((transcript) => deliverText(transcript, event, context, config)),
            ),
          )
          .pipe(
            // The agent could not even start (spawn failure, pool exhausted): say so, then fail the turn.
            // A failed send is not retried here: the gateway is what failed.
            catchError((err: unknown) =>
              err instanceof SendError
                ? throwError(() => err)
                : concat(sendText(context, event, `⚠️ ${err instanceof Error ? err.message : String(err)}`), throwError(() => err)),
            ),
          );
    }
  };
  // `/cancel` must reach the turn it cancels, which holds the session's lane.
  handler.bypassesLane = (event) => slashCommand(event.content.text) === "cancel";
  return handler;
}

function deliverText(transcript: TurnTranscript, event: GatewayEvent, context: TurnContext, config: AgentTurnHandlerOptions["config"]): Observable<never> {
  const plan = planTextReply(transcript, {
    toolDisplay: config.reactions.tool_display,
    keepFullText: config.reactions.narration_display,
    limit: context.messageLimit(event.platform),
  });
  if (plan.silentFailure === true) context.logger.warn({ reason: "empty_turn" }, SILENT_FAILURE_LOG);
  if (plan.declaredSchema !== undefined && plan.declaredSchema !== config.delivery.schema) {
    context.logger.warn({ declared: plan.declaredSchema, configured: config.delivery.schema }, "turn declared a delivery schema this deployment does not serve");
  }
  return from(plan.chunks).pipe(
    concatMap((text, index) => context.send(message(event, text, index === 0 ? plan.replyTo : undefined))),
    map(() => undefined),
    ignoreElements(),
  );
}

function sendText(context: TurnContext, event: GatewayEvent, text: string): Observable<never> {
  return context.send(message(event, text, undefined)).pipe(ignoreElements());
}

/** A reply into the event's conversation; `quote` is the `[[reply_to:…]]` target (first message only). */
function message(event: GatewayEvent, text: string, quote: string | undefined): OutboundMessage {
  const thread = event.channel.thread_id;
  return {
    reply_to: event.event_id,
    platform: event.platform,
    channel: thread === undefined || thread === null || thread === "" ? { id: event.channel.id } : { id: event.channel.id, thread_id: thread },
    content: { type: "text", text },
    ...(quote === undefined ? {} : { quote_message_id: quote }),
  };
}
