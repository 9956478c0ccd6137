import { randomBytes } from "node:crypto";

export interface DevEventOptions {
  readonly proactive?: boolean;
  /** Defaults to a fresh `evt-…` id; a fixed one exercises triage dedupe. */
  readonly eventId?: string;
  readonly platform?: string;
}

/** The `event.v1` a dev user's message becomes (the terminal's and the web chat's one shape). */
export function devEvent(text: string, { proactive = false, eventId, platform = "telegram" }: DevEventOptions = {}): Record<string, unknown> {
  return {
    schema: "openab.gateway.event.v1",
    event_id: eventId ?? `evt-${randomBytes(4).toString("hex")}`,
    timestamp: new Date().toISOString(),
    platform,
    channel: { id: "dev-chat", type: "dm" },
    sender: { id: "dev-user", name: "you", display_name: "You", is_bot: false },
    content: { type: "text", text },
    mentions: [],
    message_id: `msg-${randomBytes(4).toString("hex")}`,
    proactive,
  };
}
