import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";

/** A valid `openab.gateway.event.v1` as the gateway connector hands it on; override what a test cares about. */
export function gatewayEvent(overrides: Partial<GatewayEvent> & { text?: string } = {}): GatewayEvent {
  const { text = "hello", ...rest } = overrides;
  return {
    schema: "openab.gateway.event.v1",
    event_id: "evt-1",
    timestamp: "2026-08-25T03:00:00Z",
    platform: "telegram",
    channel: { id: "test-channel", type: "dm" },
    sender: { id: "test-user", name: "tester", display_name: "Tester", is_bot: false },
    content: { type: "text", text },
    mentions: [],
    message_id: "msg-1",
    proactive: false,
    ...rest,
  };
}
