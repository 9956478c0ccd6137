import { describe, expect, it } from "vitest";
import { slackEventOf } from "../../../src/platforms/slack/slackEvent.js";
import { botTurnKeyOf, readSlackEvent, replyThreadOf, senderIdOf } from "../../../src/platforms/slack/slackMessageEvent.js";

const payload = (event: Record<string, unknown>) => ({ type: "event_callback", event_id: "Ev01", event });

describe("readSlackEvent", () => {
  it("reads a message, absent strings as empty", () => {
    expect(readSlackEvent(payload({ type: "message", channel: "C1", ts: "1.000001", text: "hi", user: "U1" }))).toEqual({
      type: "message", eventId: "Ev01", channel: "C1", ts: "1.000001", threadTs: "", subtype: "", text: "hi", user: "U1", botId: "", username: "", files: [],
    });
  });

  it("skips other event types, and anything not shaped as Slack documents it", () => {
    expect(readSlackEvent(payload({ type: "reaction_added" }))).toBe("not_a_message");
    for (const bad of [null, [], "x", { event_id: "Ev01" }, { event: { type: "message" } }, payload({ type: 7 }), payload({ type: "message", text: 42 }), payload({ type: "message", files: {} })]) {
      expect(readSlackEvent(bad)).toBe("malformed");
    }
  });
});

describe("the keys of a message event", () => {
  const top = readSlackEvent(payload({ type: "message", channel: "C1", ts: "5.000001", user: "U1", text: "x" }));
  const reply = readSlackEvent(payload({ type: "message", channel: "C1", ts: "6.000001", thread_ts: "5.000001", bot_id: "B1", text: "x" }));
  if (typeof top === "string" || typeof reply === "string") throw new Error("unreadable");

  it("answers go into the thread, or under the message itself", () => {
    expect([replyThreadOf(top), replyThreadOf(reply)]).toEqual(["5.000001", "5.000001"]);
  });

  it("top-level messages never share a bot-turn key (§3.3 step 3)", () => {
    expect([botTurnKeyOf(top), botTurnKeyOf(reply)]).toEqual(["C1:5.000001", "5.000001"]);
  });

  it("the sender is user, else bot_id (§1.5)", () => {
    expect([senderIdOf(top), senderIdOf(reply)]).toEqual(["U1", "B1"]);
  });

  it("the event: Slack's event_id, the thread, the ts as message id and timestamp", () => {
    expect(slackEventOf(reply, "prompt", "helper", [])).toMatchObject({
      event_id: "Ev01",
      timestamp: "1970-01-01T00:00:06.000Z",
      platform: "slack",
      channel: { id: "C1", type: "channel", thread_id: "5.000001" },
      sender: { id: "B1", name: "helper", display_name: "helper", is_bot: true },
      content: { type: "text", text: "prompt" },
      message_id: "6.000001",
    });
  });
});
