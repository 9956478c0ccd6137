import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** The scripted agent's `long <n>` text: numbered words, cut at n characters. */
function scriptedWords(n: number): string {
  let text = "";
  for (let i = 1; text.length < n; i++) text += `word${i} `;
  return text.slice(0, n);
}

const prompts = (s: Stack) => s.agentEvents().filter((line) => line.startsWith("prompt "));

describe.each(stackBuses())("a text turn end to end: real gateway socket, real agent process (%s bus)", (bus) => {
  useStackBus(bus);
  it("answers one user event with exactly one reply frame carrying the agent's text", async () => {
    stack = await startStack();
    const event = userEvent("prose");
    stack.gateway.broadcast(event);
    const [reply] = await stack.replyCount(1);
    expect(reply).toEqual({
      schema: "openab.gateway.reply.v1",
      reply_to: event.event_id,
      platform: "telegram",
      channel: { id: "chat-1" },
      content: { type: "text", text: "hey what's up" },
      // On a shared bus every send asks the gateway for an ack: several edges must keep a conversation's order.
      ...(bus === "nats" ? { request_id: expect.stringMatching(/^req_/) } : {}),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stack.replies).toHaveLength(1);
  });

  it("splits a 9,000-character reply into 3 frames at the 4096 limit, in order", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("long 9000"));
    const replies = await stack.replyCount(3);
    for (const reply of replies) expect([...reply.content.text].length).toBeLessThanOrEqual(4096);
    // Plain text splits at whitespace and keeps it, so the frames concatenate back to the reply
    // (trailing whitespace trimmed, as OpenAB's text path does).
    expect(replies.map((r) => r.content.text).join("")).toBe(scriptedWords(9000).trimEnd());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stack.replies).toHaveLength(3);
  });

  it("sets quote_message_id from [[reply_to:m1]] on the first frame only", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("quote m1 6000"));
    const replies = await stack.replyCount(2);
    expect(replies[0]?.quote_message_id).toBe("m1");
    expect(replies[0]?.content.text.startsWith("word1")).toBe(true);
    expect(replies[1]?.quote_message_id).toBeUndefined();
  });

  it("skips a group message that does not mention the bot: no turn, no reply", async () => {
    stack = await startStack({ config: { gateway: { bot_username: "turnbot" } } });
    stack.gateway.broadcast(userEvent("prose", { channel: { id: "group-1", type: "group" } }));
    stack.gateway.broadcast(userEvent("prose", { channel: { id: "group-1", type: "group" }, mentions: ["turnbot"] }));
    await stack.replyCount(1);
    expect(stack.records.find((r) => r.msg === "event skipped")).toMatchObject({ reason: "not_mentioned" });
    expect(prompts(stack)).toHaveLength(1);
  });

  it("echoes the trust notice to a sender outside allowed_users once per 5 minutes, and runs no turn", async () => {
    stack = await startStack({ config: { gateway: { allow_all_users: false, allowed_users: ["someone-else"] } } });
    stack.gateway.broadcast(userEvent("prose"));
    stack.gateway.broadcast(userEvent("prose"));
    const [echo] = await stack.replyCount(1);
    expect(echo?.content.text).toBe("⚠️ You are not on this bot's trusted list.\nYour ID: user-1\nAsk the admin to add it to allowed_users.");
    await until(() => stack!.records.filter((r) => r.msg === "event denied").length === 2, 5_000);
    expect(stack.records.filter((r) => r.msg === "event denied").map((r) => r.reason)).toEqual(["deny_identity", "deny_identity"]);
    expect(stack.replies).toHaveLength(1);
    expect(prompts(stack)).toHaveLength(0);
  });

  it("/reset ends the session: OpenAB's reply, and the next turn runs on a new session", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("prose"));
    await stack.replyCount(1);
    stack.gateway.broadcast(userEvent("/reset"));
    const replies = await stack.replyCount(2);
    expect(replies[1]?.content.text).toBe("🔄 Session reset. Start a new conversation!");
    stack.gateway.broadcast(userEvent("prose"));
    await stack.replyCount(3);
    expect(stack.agentEvents().filter((line) => line.startsWith("new "))).toHaveLength(2);
    expect(stack.replies[2]?.content.text).toBe("hey what's up");
  });

  it("/cancel reaches the running turn without waiting behind it", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("slow 10000"));
    await until(() => prompts(stack!).length === 1, 10_000);
    stack.gateway.broadcast(userEvent("/cancel"));
    const replies = await stack.replyCount(1);
    expect(replies[0]?.content.text).toBe("🛑 Cancel signal sent.");
    expect(await until(() => stack!.agentEvents().some((line) => line.startsWith("cancel ")), 5_000)).toBe(true);
  });

  it("a cancelled turn delivers nothing more, in text and structured mode alike", async () => {
    for (const delivery of [{ mode: "text" }, { mode: "structured" }]) {
      stack = await startStack({ config: { delivery } });
      // The agent wrote text before the cancel arrived; none of it may reach the chat.
      stack.gateway.broadcast(userEvent("drip 20 300"));
      await until(() => prompts(stack!).length === 1, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 700));
      stack.gateway.broadcast(userEvent("/cancel"));
      expect(await until(() => stack!.records.some((r) => r.msg === "turn cancelled; nothing more delivered"), 10_000)).toBe(true);
      await until(() => stack!.records.filter((r) => r.msg === "turn complete").length >= 2, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stack.replies.map((r) => r.content.text)).toEqual(["🛑 Cancel signal sent."]);
      await stack.stop();
      stack = undefined;
    }
  });

  it("logs malformed frames with a reason and keeps the connection", async () => {
    stack = await startStack({ config: { gateway: { max_frame_bytes: 2048 } } });
    stack.gateway.broadcast("this is not json");
    stack.gateway.broadcast("[1,2,3]");
    stack.gateway.broadcast({ ...userEvent("prose"), sender: { id: 42 } });
    stack.gateway.broadcast(userEvent("x".repeat(4096)));
    // A text frame that is not UTF-8: ws would close the connection (1007) for every chat.
    stack.gateway.broadcast(Buffer.concat([Buffer.from(JSON.stringify(userEvent("prose")).slice(0, -1)), Buffer.from([0xff, 0x7d])]));
    stack.gateway.broadcast(userEvent("prose"));
    await stack.replyCount(1);
    const dropped = stack.records.filter((r) => r.msg === "gateway frame dropped").map((r) => r.reason);
    expect(dropped).toEqual(["not_json", "not_object", "invalid_event", "too_large", "not_utf8"]);
    expect(stack.records.filter((r) => r.msg === "connected to gateway")).toHaveLength(1);
    expect(JSON.stringify(stack.records.filter((r) => r.msg === "gateway frame dropped"))).not.toContain("xxxx");
  });

  it("reconnects with backoff when the gateway goes away and comes back", async () => {
    stack = await startStack();
    const port = stack.gateway.port;
    await stack.gateway.close();
    const { DevGateway } = await import("../../src/devgateway/devGateway.js");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const revived = await DevGateway.start({ port, token: stack.gateway.token });
    try {
      expect(await until(() => revived.brokerCount === 1, 15_000)).toBe(true);
      const replies: string[] = [];
      revived.received.subscribe((frame) => frame.kind === "reply" && frame.frame.command === undefined && replies.push(frame.frame.content.text));
      revived.broadcast(userEvent("prose"));
      expect(await until(() => replies.length === 1, 15_000)).toBe(true);
      expect(replies).toEqual(["hey what's up"]);
      expect(stack.records.some((r) => r.msg === "gateway connection failed, retrying")).toBe(true);
      expect(stack.records.filter((r) => r.msg === "connected to gateway")).toHaveLength(2);
    } finally {
      await revived.close();
    }
  });

  it("honours a hello: per-send acks when send_ack is negotiated, and the gateway's message_limit", async () => {
    stack = await startStack({
      gateway: { hello: { capabilities: { telegram: { send_ack: true, message_limit: { unit: "characters", max: 100 } } } } },
    });
    await until(() => stack!.records.some((r) => r.msg === "gateway capabilities negotiated"), 5_000);
    stack.gateway.broadcast(userEvent("long 250"));
    const replies = await stack.replyCount(3);
    for (const reply of replies) {
      expect(reply.request_id).toMatch(/^req_[0-9a-f-]{36}$/);
      expect([...reply.content.text].length).toBeLessThanOrEqual(100);
    }
  });
});

// Issue 43: the same turn path with `[pool] sessions_per_agent = 10` and ten conversations at once,
// so every turn runs on a session that shares its agent process with nine others.
describe.each(stackBuses())("text turns of ten conversations sharing one agent process (sessions_per_agent = 10, %s bus)", (bus) => {
  useStackBus(bus);
  // Zero-padded, so no chat's name is the start of another's.
  const chats = Array.from({ length: 10 }, (_, i) => `chat-${String(i + 1).padStart(2, "0")}`);
  const sharedStack = () => startStack({ config: { pool: { sessions_per_agent: 10, max_sessions: 10 } } });
  const say = (s: Stack, chat: string, text: string) => s.gateway.broadcast(userEvent(text, { channel: { id: chat, type: "dm" } }));
  const repliesIn = (s: Stack, chat: string) => s.replies.filter((r) => r.channel.id === chat).map((r) => r.content.text);
  const lines = (s: Stack, word: string) => s.agentEvents().filter((line) => line.startsWith(`${word} `));
  /** One agent process started, and every session named (`sess-<pid>-<n>`) lives in it. */
  function oneProcess(s: Stack): void {
    expect(lines(s, "start")).toHaveLength(1);
    const pid = lines(s, "start")[0]?.split(" ")[1];
    expect(lines(s, "new").every((line) => line.startsWith(`new sess-${pid}-`))).toBe(true);
  }

  it("answers each conversation with exactly its own reply", async () => {
    const s = (stack = await sharedStack());
    for (const chat of chats) say(s, chat, `say the answer for ${chat}`);
    await s.replyCount(10);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const chat of chats) expect(repliesIn(s, chat), chat).toEqual([`the answer for ${chat}`]);
    expect(lines(s, "new")).toHaveLength(10);
    oneProcess(s);
  });

  it("/cancel in one conversation cancels its turn only; the nine beside it on the process answer", async () => {
    const s = (stack = await sharedStack());
    say(s, chats[0] ?? "", "sayafter 10000 never sent");
    for (const chat of chats.slice(1)) say(s, chat, `sayafter 800 the answer for ${chat}`);
    expect(await until(() => lines(s, "prompt").length === 10, 10_000)).toBe(true);
    say(s, chats[0] ?? "", "/cancel");
    await s.replyCount(10);
    expect(await until(() => s.records.filter((r) => r.msg === "turn complete").length >= 10, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines(s, "cancel")).toHaveLength(1);
    expect(repliesIn(s, chats[0] ?? "")).toEqual(["🛑 Cancel signal sent."]);
    for (const chat of chats.slice(1)) expect(repliesIn(s, chat), chat).toEqual([`the answer for ${chat}`]);
    oneProcess(s);
  });

  it("/reset in one conversation gives it a new session on the same process; the others keep theirs", async () => {
    const s = (stack = await sharedStack());
    for (const chat of chats) say(s, chat, "prose");
    await s.replyCount(10);
    const before = lines(s, "new");
    say(s, chats[0] ?? "", "/reset");
    await s.replyCount(11);
    for (const chat of chats) say(s, chat, `say again ${chat}`);
    await s.replyCount(21);
    expect(repliesIn(s, chats[0] ?? "")).toEqual(["hey what's up", "🔄 Session reset. Start a new conversation!", `again ${chats[0]}`]);
    for (const chat of chats.slice(1)) expect(repliesIn(s, chat), chat).toEqual(["hey what's up", `again ${chat}`]);
    // One new session (chat-01's), the nine others prompted twice on the ids they had.
    const after = lines(s, "new");
    expect(after).toHaveLength(11);
    expect(after.slice(0, 10)).toEqual(before);
    const prompted = lines(s, "prompt").map((line) => line.split(" ")[1]);
    expect(before.map((line) => prompted.filter((id) => id === line.slice("new ".length)).length).sort()).toEqual([1, ...Array(9).fill(2)]);
    oneProcess(s);
  });
});
