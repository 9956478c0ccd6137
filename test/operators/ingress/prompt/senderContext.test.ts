import { describe, expect, it } from "vitest";
import { senderContext } from "../../../../operators/ingress/prompt/senderContext.js";
import { gatewayEvent } from "../../../helpers/events.js";

const RECEIVED = "2026-08-25T03:00:07.123Z";

describe("senderContext (§7.1)", () => {
  it("reproduces the §7.1 example byte for byte", () => {
    const event = gatewayEvent({ channel: { id: "test-channel", type: "dm" }, message_id: "msg-5e6f7a8b" });
    expect(senderContext(event, RECEIVED)).toBe(
      '{"schema":"openab.sender.v1","sender_id":"test-user","sender_name":"tester","display_name":"Tester","channel":"dm","channel_id":"test-channel","is_bot":false,"timestamp":"2026-08-25T03:00:00Z","message_id":"msg-5e6f7a8b"}',
    );
  });

  it("puts thread_id after channel_id when there is a thread", () => {
    const event = gatewayEvent({ channel: { id: "g1", type: "supergroup", thread_id: "42" } });
    expect(Object.keys(JSON.parse(senderContext(event, RECEIVED)))).toStrictEqual([
      "schema",
      "sender_id",
      "sender_name",
      "display_name",
      "channel",
      "channel_id",
      "thread_id",
      "is_bot",
      "timestamp",
      "message_id",
    ]);
  });

  it("leaves out an absent, null or empty thread_id and an empty message_id", () => {
    for (const channel of [{ id: "c", type: "dm" }, { id: "c", type: "dm", thread_id: null }, { id: "c", type: "dm", thread_id: "" }]) {
      const json = JSON.parse(senderContext(gatewayEvent({ channel, message_id: "" }), RECEIVED)) as Record<string, unknown>;
      expect(json).not.toHaveProperty("thread_id");
      expect(json).not.toHaveProperty("message_id");
    }
  });

  it("uses the receive time when the event has no timestamp", () => {
    expect(JSON.parse(senderContext(gatewayEvent({ timestamp: "" }), RECEIVED))).toMatchObject({ timestamp: RECEIVED });
  });

  it("escapes like any JSON and keeps non-ASCII as is", () => {
    const event = gatewayEvent({ sender: { id: "u", name: 'a"b', display_name: "Zoë 🙂\n", is_bot: true } });
    expect(senderContext(event, RECEIVED)).toContain('"sender_name":"a\\"b","display_name":"Zoë 🙂\\n","channel"');
  });
});
