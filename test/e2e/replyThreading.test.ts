import { afterEach, describe, expect, it } from "vitest";
import { startStack, stackBuses, userEvent, useStackBus, type Stack } from "../helpers/stack.js";

// [delivery] reply_to_mode and response_prefix over a real dev gateway: which messages of a turn
// quote the user's message, and the prefix on each. Both buses.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

describe.each(stackBuses())("reply threading and prefix (%s bus)", (bus) => {
  useStackBus(bus);

  it('reply_to_mode = "all" quotes the user\'s message on every message of a turn, each with the prefix', async () => {
    const s = (stack = await startStack({ config: { delivery: { mode: "structured", bubble_delay_ms: 50, reply_to_mode: "all", response_prefix: "[ops]" }, reactions: { enabled: false } } }));
    s.gateway.broadcast(userEvent("envelope", { message_id: "user-42" }));
    const replies = await s.replyCount(3, 20_000);
    expect(replies.map((r) => [r.content.text, r.quote_message_id])).toEqual([
      ["[ops] on it", "user-42"],
      ["[ops] your flight moved to 8pm", "user-42"],
      ["[ops] gate B12", "user-42"],
    ]);
  });

  it('reply_to_mode = "off" quotes nothing, not even the agent\'s [[reply_to:…]]', async () => {
    const s = (stack = await startStack({ config: { delivery: { reply_to_mode: "off" }, reactions: { enabled: false } } }));
    s.gateway.broadcast(userEvent("quote m7 9000", { message_id: "user-43" }));
    const replies = await s.replyCount(3, 20_000);
    expect(replies.map((r) => r.quote_message_id)).toEqual([undefined, undefined, undefined]);
  });

  it('reply_to_mode = "first" quotes the user\'s message on the first message only; unset keeps OpenAB\'s directive rule', async () => {
    let s = (stack = await startStack({ config: { delivery: { mode: "structured", bubble_delay_ms: 50, reply_to_mode: "first" }, reactions: { enabled: false } } }));
    s.gateway.broadcast(userEvent("envelope", { message_id: "user-44" }));
    expect((await s.replyCount(3, 20_000)).map((r) => r.quote_message_id)).toEqual(["user-44", undefined, undefined]);
    await s.stop();
    s = stack = await startStack({ config: { reactions: { enabled: false } } });
    s.gateway.broadcast(userEvent("quote m7 9000", { message_id: "user-45" }));
    expect((await s.replyCount(3, 20_000)).map((r) => r.quote_message_id)).toEqual(["m7", undefined, undefined]);
  });
});
