import { describe, expect, it } from "vitest";
import { readBlockActions } from "../../../src/platforms/slack/blockActions.js";
import { slackTapEventOf } from "../../../src/platforms/slack/slackTapEvent.js";
import { readTapId, tapIdOf } from "../../../src/platforms/slack/tapId.js";

/** A block_actions payload as Slack sends it for a button on a message in a thread. */
function payload(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "block_actions",
    user: { id: "U0ALICE", username: "alice", name: "alice", team_id: "T0TEAM" },
    api_app_id: "A0APP",
    container: { type: "message", message_ts: "1714204400.000200", channel_id: "C0GENERAL", is_ephemeral: false, thread_ts: "1714204397.000100" },
    trigger_id: "1714204401.123.abcdef0123",
    channel: { id: "C0GENERAL", name: "general" },
    message: { type: "message", ts: "1714204400.000200", thread_ts: "1714204397.000100", text: "Allow?", blocks: [] },
    actions: [{ type: "button", action_id: "q1:allow_once", block_id: "b1", value: "q1:allow_once", text: { type: "plain_text", text: "Allow once" }, action_ts: "1714204401.000300" }],
    ...changes,
  };
}

describe("readBlockActions: a Socket Mode interactive payload as a tap", () => {
  it("reads the tapper, where the button's message is, its thread and the button's data", () => {
    expect(readBlockActions(payload())).toEqual({
      triggerId: "1714204401.123.abcdef0123",
      user: "U0ALICE",
      channel: "C0GENERAL",
      messageTs: "1714204400.000200",
      threadTs: "1714204397.000100",
      actionTs: "1714204401.000300",
      actionId: "q1:allow_once",
    });
  });

  it("the thread from message.thread_ts when the container has none; a top-level message has none", () => {
    const container = { type: "message", message_ts: "1714204400.000200", channel_id: "C0GENERAL", is_ephemeral: false };
    expect(readBlockActions(payload({ container }))).toMatchObject({ threadTs: "1714204397.000100" });
    expect(readBlockActions(payload({ container, message: { ts: "1714204400.000200", text: "Allow?" } }))).toMatchObject({ threadTs: "" });
  });

  it("says why a payload is no tap", () => {
    const action = (changes: Record<string, unknown>) => ({ actions: [{ ...(payload().actions as Record<string, unknown>[])[0], ...changes }] });
    const cases: [unknown, string][] = [
      ["not an object", "malformed"],
      [{ ...payload(), type: 42 }, "malformed"],
      [payload({ type: "view_submission" }), "not_block_actions"],
      [payload({ container: { type: "view", view_id: "V1" } }), "not_a_message"],
      [payload({ container: { type: "message", message_ts: "1.2", channel_id: "C0GENERAL", is_ephemeral: true } }), "ephemeral"],
      [payload({ user: { id: "alice" } }), "malformed"],
      [payload({ user: undefined }), "malformed"],
      [payload({ container: { type: "message", message_ts: "yesterday", channel_id: "C0GENERAL" } }), "malformed"],
      [payload({ container: { type: "message", message_ts: "1.2", channel_id: "general" } }), "malformed"],
      [payload({ container: { type: "message", message_ts: "1.2", channel_id: "C0GENERAL", thread_ts: 7 } }), "malformed"],
      [payload({ trigger_id: undefined }), "malformed"],
      [payload({ actions: [] }), "no_action"],
      [payload({ actions: "tap" }), "no_action"],
      [payload(action({ action_id: 12 })), "bad_action_id"],
      [payload(action({ action_id: "x".repeat(65) })), "bad_action_id"],
      [payload(action({ action_id: "q1 allow" })), "bad_action_id"],
      [payload(action({ action_id: "" })), "bad_action_id"],
    ];
    for (const [given, reason] of cases) expect(readBlockActions(given), JSON.stringify(given).slice(0, 120)).toBe(reason);
    expect(readBlockActions(payload(action({ action_id: "x".repeat(64) })))).toMatchObject({ actionId: "x".repeat(64) });
  });
});

describe("tap ids and tap events", () => {
  it("a tap id names the channel, the person and the thread, and reads back; anything else is no tap id", () => {
    const target = { channel: "C0GENERAL", user: "U0ALICE", threadTs: "1714204397.000100" };
    expect(tapIdOf(target)).toBe("C0GENERAL:U0ALICE:1714204397.000100");
    expect(readTapId(tapIdOf(target))).toEqual(target);
    expect(readTapId("D0DM:U0ALICE:")).toEqual({ channel: "D0DM", user: "U0ALICE", threadTs: "" });
    for (const bad of ["", "C0GENERAL", "C0GENERAL:U0ALICE", "C0GENERAL:U0ALICE:1.2:extra", "c0general:U0ALICE:", "C0GENERAL:B0BOT:", "C0GENERAL:U0ALICE:soon", "12345:U0ALICE:"]) expect(readTapId(bad), bad).toBeUndefined();
  });

  it("the event is keyed as a message in the same thread is, and carries the tap", () => {
    const action = readBlockActions(payload());
    if (typeof action === "string") throw new Error(action);
    expect(slackTapEventOf(action, "Ali")).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: "tap:1714204401.123.abcdef0123",
      timestamp: "2024-04-27T07:53:21.000Z",
      platform: "slack",
      channel: { id: "C0GENERAL", type: "channel", thread_id: "1714204397.000100" },
      sender: { id: "U0ALICE", name: "Ali", display_name: "Ali", is_bot: false },
      content: { type: "text", text: "" },
      mentions: [],
      message_id: "1714204400.000200",
      proactive: false,
      tap: { id: "C0GENERAL:U0ALICE:1714204397.000100", data: "q1:allow_once" },
    });
    const topLevel = readBlockActions(payload({ container: { type: "message", message_ts: "1714204400.000200", channel_id: "D0DM" }, message: { ts: "1714204400.000200" } }));
    if (typeof topLevel === "string") throw new Error(topLevel);
    expect(slackTapEventOf(topLevel, "Ali")).toMatchObject({ channel: { id: "D0DM", type: "dm", thread_id: "1714204400.000200" }, tap: { id: "D0DM:U0ALICE:" } });
  });
});
