import { collectedPrompt } from "../../operators/dispatch/queuedPrompt.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";

/**
 * The event a turn runs on: the message itself, or — for messages collected while the session was
 * busy — the last one carrying OpenClaw's collect prompt (every message with its sender).
 */
export function collected(events: readonly GatewayEvent[], dropped: readonly string[]): GatewayEvent {
  const last = events[events.length - 1] as GatewayEvent;
  if (events.length === 1 && dropped.length === 0) return last;
  const text = collectedPrompt(
    events.map((event) => ({ sender: event.sender.display_name || event.sender.name || event.sender.id, text: event.content.text })),
    dropped,
  );
  return { ...last, content: { ...last.content, text } };
}
