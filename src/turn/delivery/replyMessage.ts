import { concatMap, from, last, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { threadIdOf } from "../../../operators/ingress/threadIdOf.js";
import type { TurnContext } from "../turn.js";

/** The event's conversation as a reply frame names it: the channel, and the thread when there is one. */
export function replyChannel(event: GatewayEvent): OutboundMessage["channel"] {
  const thread = threadIdOf(event.channel);
  return thread === undefined ? { id: event.channel.id } : { id: event.channel.id, thread_id: thread };
}

/** What a reply to `event` answers: its `event_id`, or `""` for an event no platform sent (a cron job's, a webhook's). */
export function replyTo(event: Pick<GatewayEvent, "event_id" | "origin">): string {
  return event.origin === undefined ? event.event_id : "";
}

/** A reply into the event's conversation; `quote` is the `[[reply_to:…]]` target (the turn's first message only). */
export function replyMessage(event: GatewayEvent, text: string, quote: string | undefined): OutboundMessage {
  return {
    reply_to: replyTo(event),
    platform: event.platform,
    channel: replyChannel(event),
    content: { type: "text", text },
    ...(quote === undefined ? {} : { quote_message_id: quote }),
  };
}

/**
 * Sends one bubble: split at the platform's limit, its parts sent in order, each after the
 * previous one's ack; `quote` goes on the first part only. Emits the last part's receipt.
 */
export function sendBubble(context: TurnContext, event: GatewayEvent, text: string, quote: string | undefined): Observable<SendReceipt> {
  const parts = splitMessage(text, context.messageLimit(event.platform));
  return from(parts).pipe(
    concatMap((part, index) => context.send(replyMessage(event, part, index === 0 ? quote : undefined))),
    last(),
  );
}
