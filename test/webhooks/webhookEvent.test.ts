import { describe, expect, it } from "vitest";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import { triageKey } from "../../operators/triage/triageKey.js";
import { webhookChannelType, webhookEvent } from "../../src/webhooks/webhookEvent.js";

describe("webhookEvent", () => {
  it("is a proactive event from the endpoint, as a bot, in the configured conversation", () => {
    const event = webhookEvent("alerts", { platform: "telegram", channel: "-100123", thread_id: "7" }, "d-1", "New alert", "2026-08-25T03:00:00.000Z");
    expect(event).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: "webhook:alerts:d-1",
      timestamp: "2026-08-25T03:00:00.000Z",
      platform: "telegram",
      channel: { id: "-100123", type: "group", thread_id: "7" },
      sender: { id: "webhook:alerts", name: "alerts", display_name: "alerts", is_bot: true },
      content: { type: "text", text: "New alert" },
      mentions: [],
      message_id: "",
      proactive: true,
      origin: "webhook",
    });
    // The conversation's own session and triage counters, as a human's message there would have.
    expect(sessionKey(event)).toBe("telegram:-100123:7");
    expect(triageKey(event)).toBe("telegram:-100123");
  });

  it("leaves thread_id out when none is configured", () => {
    expect(webhookEvent("a", { platform: "discord", channel: "555" }, "1", "p", "t").channel).toEqual({ id: "555", type: "group" });
  });
});

describe("webhookChannelType", () => {
  it("names the chat as the platform's own events do where the id says, else group", () => {
    expect(webhookChannelType("telegram", "-1001234567890")).toBe("group");
    expect(webhookChannelType("telegram", "123456789")).toBe("private");
    expect(webhookChannelType("slack", "D0123456789")).toBe("dm");
    expect(webhookChannelType("slack", "C0123456789")).toBe("channel");
    expect(webhookChannelType("discord", "1100000000000000001")).toBe("group");
    expect(webhookChannelType("line", "U123")).toBe("group");
  });
});
