import { afterEach, describe, expect, it } from "vitest";
import { stackBuses, startStack, until, useStackBus, userEvent, type Stack } from "../helpers/stack.js";

/**
 * Ids from the wire that are awkward as NATS subject tokens or KV keys: each must still be
 * answered, on either bus (the platform names the send subject, the ids the KV keys of triage,
 * sessions, dedupe and the delivery ledger, and the turn stream's message id).
 */
const awkward: { name: string; platform: string; channel: Record<string, unknown>; event_id: string }[] = [
  { name: "empty platform", platform: "", channel: { id: "chat-empty", type: "dm" }, event_id: "w-1" },
  { name: "dots and wildcards", platform: "a.b", channel: { id: "c.*.>", type: "group", thread_id: "t.>" }, event_id: "w.2.*" },
  { name: "spaces, NUL and line breaks", platform: "my platform", channel: { id: "c h\u0000a t", type: "dm" }, event_id: "w 3\r\nx" },
  { name: "non-ASCII and lone surrogates", platform: "плат", channel: { id: "频道😀", type: "dm", thread_id: "\ud800" }, event_id: "事件-4" },
  { name: "ids far past the control-line cap", platform: "p".repeat(5_000), channel: { id: "好".repeat(2_000), type: "dm" }, event_id: "e".repeat(5_000) },
];

describe.each(stackBuses())("wire ids that are no safe subject token or KV key (%s bus)", (bus) => {
  useStackBus(bus);
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it("answers every event, each in its own conversation, and shows no user an error", async () => {
    stack = await startStack({ config: { triage: { enabled: true, timezone: "UTC", cooldown_secs: 0, daily_cap: 100 } } });
    for (const [i, ids] of awkward.entries()) {
      stack.gateway.broadcast(userEvent(`say reply-${i}`, { ...ids, message_id: `wm-${i}` }));
    }
    const replies = await stack.replyCount(awkward.length, 30_000);
    for (const [i, ids] of awkward.entries()) {
      const reply = replies.find((r) => r.reply_to === ids.event_id);
      expect(reply, ids.name).toBeDefined();
      expect(reply!.content.text, ids.name).toBe(`reply-${i}`);
      expect(reply!.platform, ids.name).toBe(ids.platform);
      expect(reply!.channel.id, ids.name).toBe(ids.channel.id);
    }
    // Proactive events go through triage's shared state too.
    stack.gateway.broadcast(userEvent("say proactive", { platform: "", channel: { id: "news.*", type: "group", thread_id: "\u0000" }, event_id: "w-p", proactive: true }));
    expect(await until(() => stack!.records.some((r) => r.msg === "proactive event admitted by triage" || r.msg === "proactive event suppressed by triage"), 20_000)).toBe(true);
    await until(() => stack!.replies.length > awkward.length, 10_000);
    expect(stack.records.filter((r) => Number(r.level) >= 50).map((r) => r.msg)).toEqual([]);
    expect(stack.records.filter((r) => r.msg === "event rejected" || r.msg === "turn failed")).toEqual([]);
  }, 90_000);
});
