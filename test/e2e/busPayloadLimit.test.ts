import { afterEach, describe, expect, it } from "vitest";
import { EVENT_OVER_MAX_PAYLOAD_LOG } from "../../src/broker/queueEvent.js";
import { scrape } from "../helpers/metricsText.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { startStack, until, userEvent, useStackBus, type Stack } from "../helpers/stack.js";

// The NATS server's max_payload (1 MiB by default) against what the edge takes from the gateway
// ([gateway] max_frame_bytes, 4 MiB by default), over real parts: a nats-server started here, the
// dev gateway (a real WebSocket server), the broker as edge and worker, the scripted agent (its
// `echo` scenario answers with every text block of its prompt).

const MAX_PAYLOAD = 1024 * 1024;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** A text event in `chat`. */
const textEvent = (chat: string, text: string) => userEvent(text, { channel: { id: chat, type: "dm" } });

/** An event in `chat` with one inline voice note of `bytes` bytes. */
function voiceNote(chat: string, text: string, bytes: number): Record<string, unknown> {
  const data = Buffer.alloc(bytes, 0x5a).toString("base64");
  return userEvent("", {
    channel: { id: chat, type: "dm" },
    content: { type: "text", text, attachments: [{ type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", data, size: bytes }] },
  });
}

const retries = (s: Stack) => s.records.filter((r) => r.reason === "queue_retry");
const replyIn = (s: Stack, chat: string) => s.replies.find((reply) => reply.channel.id === chat)?.content.text;

describe.skipIf(!natsServerAvailable())("an event bigger than the NATS server's max_payload", () => {
  useStackBus("nats");

  it("a 2 MB voice note goes on without its bytes: the text reaches the agent with the note, nothing is retried, other chats go on", async () => {
    // Each event its own turn, so the chat's second message is answered on its own.
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { queue: { mode: "followup", debounce_ms: 0 } } });
    const s = stack;
    const started = Date.now();
    // 2 MB of audio: a 2.7 MB frame, under max_frame_bytes (4 MiB), over max_payload (1 MiB).
    s.gateway.broadcast(voiceNote("chat-big", "listen to this", 2_000_000));
    s.gateway.broadcast(textEvent("chat-2", "still there?"));
    s.gateway.broadcast(textEvent("chat-big", "and this?"));
    expect(await until(() => s.replies.length >= 3, 20_000)).toBe(true);
    // Before, the append was retried for 30 s, then refused: the user saw nothing.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(replyIn(s, "chat-2")).toContain("still there?");
    const big = s.replies.filter((reply) => reply.channel.id === "chat-big").map((reply) => reply.content.text);
    expect(big[0]).toContain("listen to this");
    expect(big[0]).toContain('[System: attachment "voice.ogg" (audio/ogg, 1.9 MB) was not delivered — too_large: the message was over the NATS server\'s max_payload]');
    expect(big[1]).toContain("and this?");
    expect(retries(s)).toEqual([]);
    expect(s.records.filter((r) => r.msg === "event rejected")).toEqual([]);
    const logged = s.records.filter((r) => r.msg === EVENT_OVER_MAX_PAYLOAD_LOG);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ reason: "payload_too_large", attachments: 1, maxPayloadBytes: MAX_PAYLOAD });
    expect(logged[0]?.bytes).toBeGreaterThan(2_600_000);
    expect(s.records.filter((r) => r.msg === "connected to gateway")).toHaveLength(1);
  });

  it("a huge text is refused at once with its reason, logged and counted; the chat's next message is answered", async () => {
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { metrics: { enabled: true, listen: "127.0.0.1:0" } } });
    const s = stack;
    const started = Date.now();
    s.gateway.broadcast(textEvent("chat-huge", "y".repeat(1_500_000)));
    s.gateway.broadcast(textEvent("chat-huge", "short one"));
    s.gateway.broadcast(textEvent("chat-3", "hello"));
    expect(await until(() => s.replies.length >= 2, 20_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(replyIn(s, "chat-huge")).toContain("short one");
    expect(replyIn(s, "chat-3")).toContain("hello");
    const rejected = s.records.filter((r) => r.msg === "event rejected");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ reason: "payload_too_large", err: { name: "PayloadTooLargeError", maxPayloadBytes: MAX_PAYLOAD } });
    expect(JSON.stringify(rejected)).not.toContain("yyyy");
    expect(retries(s)).toEqual([]);
    expect(s.records.filter((r) => r.msg === EVENT_OVER_MAX_PAYLOAD_LOG)).toEqual([]);
    const url = s.broker.metricsUrl;
    if (url === undefined) throw new Error("the broker serves no metrics");
    expect((await scrape(url)).get("turnstream_events_total", { outcome: "dropped" })).toBe(1);
    // Only the two that fit became turns.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(2);
  });
});

describe.skipIf(!natsServerAvailable())("a reply bigger than the NATS server's max_payload", () => {
  useStackBus("nats");

  it("a gateway that allows any length: a 1.5 MB reply goes out in messages that each fit, in order, nothing lost", async () => {
    stack = await startStack({
      gateway: { hello: { capabilities: { telegram: { send_ack: true, message_limit: { unit: "unlimited" } } } } },
      // Telegram's per-chat limit would spread a dozen messages over ten seconds: not what this is about.
      config: { rate_limits: { telegram: { enabled: false } } },
    });
    const s = stack;
    s.gateway.broadcast(textEvent("chat-long", "long 1500000"));
    expect(await until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 30_000)).toBe(true);
    expect(s.records.filter((r) => r.msg === "turn failed")).toEqual([]);
    const texts = s.replies.map((reply) => reply.content.text);
    // An eighth of max_payload per message: a character is at most 6 bytes in the request's JSON.
    expect(texts.length).toBeGreaterThanOrEqual(Math.ceil(1_500_000 / (MAX_PAYLOAD / 8)));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(MAX_PAYLOAD / 8);
    // The agent wrote `word1 word2 …`: every word arrived, in order (the last one cut where the reply ended).
    const words = texts.join(" ").split(/\s+/).filter((word) => word !== "");
    const last = words.length;
    expect(words.slice(0, -1)).toEqual(Array.from({ length: last - 1 }, (_, i) => `word${i + 1}`));
    expect(`word${last}`.startsWith(words[last - 1] ?? "-")).toBe(true);
    expect(last).toBeGreaterThan(140_000);
  });
});

describe("a gateway that allows any length, on the embedded bus", () => {
  it("a long reply goes out whole, as one message (it failed every turn with internal_error: the split had no integer limit)", async () => {
    stack = await startStack({ gateway: { hello: { capabilities: { telegram: { send_ack: true, message_limit: { unit: "unlimited" } } } } } });
    const s = stack;
    s.gateway.broadcast(textEvent("chat-long", "long 20000"));
    expect(await until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 20_000)).toBe(true);
    expect(s.records.filter((r) => r.msg === "turn failed")).toEqual([]);
    expect(s.replies.map((reply) => reply.content.text.length)).toEqual([20_000]);
  });
});
