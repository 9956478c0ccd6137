import { ignoreElements, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { replyMessage } from "./delivery/replyMessage.js";
import type { TurnContext } from "./turn.js";

/** A plain text reply to `event` (a command's answer, a failed turn's notice), sent through the turn's context. */
export function sendText(context: TurnContext, event: GatewayEvent, text: string): Observable<never> {
  return context.send(replyMessage(event, text, undefined)).pipe(ignoreElements());
}
