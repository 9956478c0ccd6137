import { catchError, concat, concatMap, defer, from, ignoreElements, throwError, type Observable } from "rxjs";
import { collectTranscript } from "../../operators/delivery/collectTranscript.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { packPrompt } from "../../operators/ingress/packPrompt.js";
import { cancelReply, resetReply, slashCommand } from "../../operators/ingress/slashCommand.js";
import type { SessionPool } from "../acp/pool.js";
import { SendError } from "../pipeline/errors.js";
import { deliverText, type DeliveryConfig } from "./delivery/deliverText.js";
import { replyMessage } from "./delivery/replyMessage.js";
import type { TurnContext, TurnHandler } from "./turn.js";

export interface AgentTurnHandlerOptions {
  readonly pool: SessionPool;
  readonly config: DeliveryConfig;
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

function sendText(context: TurnContext, event: GatewayEvent, text: string): Observable<never> {
  return context.send(replyMessage(event, text, undefined)).pipe(ignoreElements());
}
