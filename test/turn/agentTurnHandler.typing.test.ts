import { afterEach, describe, expect, it } from "vitest";
import { defer, of } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { resolveCapabilities, type PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { SessionPool } from "../../src/acp/pool/pool.js";
import type { DurableMessage } from "../../src/bus/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { defaultConfig } from "../../src/config/index.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { MemorySessionStore } from "../../src/state/sessionStore.js";
import { createAgentTurnHandler } from "../../src/turn/agentTurnHandler.js";
import type { SettledTurn } from "../../src/turn/turn.js";
import { runTurn } from "../../src/worker/turnRun.js";
import { agentConfig, eventually, scratch } from "../helpers/agents.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";

// The default turn handler with a real agent process, run as the worker runs a turn, in real
// time: "typing…" goes out while the agent works, on a platform that shows it. The exact cadence
// is pinned in virtual time (test/turn/typing/withTyping.marble.test.ts).

const config = defaultConfig({});
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A platform that shows reactions, as a gateway's hello gives it, with the typing indicator as given. */
function capabilities(typingIndicator: boolean): PlatformCapabilities {
  const hello = { schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: { supports_reactions: true } } } as const;
  return { ...resolveCapabilities(hello, "telegram", { streaming: false, streamingPlaceholder: false }), typingIndicator };
}

/** One turn of the default handler on a real scripted agent; resolves once it settled, with every send and when it was asked. */
async function turn(text: string, platform: PlatformCapabilities) {
  const dir = scratch();
  const { logger } = captureLogs("info");
  const pool = new SessionPool({ agent: agentConfig({ AGENT_EVENTS_FILE: dir.eventsFile }), pool: config.pool, env: process.env, logger, store: new MemorySessionStore() });
  const bus = new MemoryBus();
  cleanups.push(dir.cleanup, () => pool.close(), () => bus.close());
  const messages: DurableMessage<GatewayEvent>[] = [];
  bus.consume<GatewayEvent>("t.turn.0", { durable: "w" }).subscribe((message) => messages.push(message));
  bus.persist("t.turn.0", gatewayEvent({ event_id: "e1", text })).subscribe();
  const start = Date.now();
  const sent: Array<{ readonly ms: number; readonly message: OutboundMessage }> = [];
  const send = (message: OutboundMessage) =>
    defer(() => {
      sent.push({ ms: Date.now() - start, message });
      return of<SendReceipt>({ messageId: `m${sent.length}` });
    });
  const settled: SettledTurn[] = [];
  let settledAt = Number.POSITIVE_INFINITY;
  const onSettled = (done: SettledTurn) => {
    settled.push(done);
    settledAt = Date.now() - start;
  };
  const handler = createAgentTurnHandler({ pool, config });
  runTurn(messages, { dropped: [], marked: false }, { bus, logger, pipeline: new Pipeline(), handler, send, capabilities: () => platform, messageLimit: () => 4096, retryInMs: 1_000, onSettled }, () => undefined);
  expect(await eventually(() => settled.length === 1, 30_000)).toBe(true);
  return { sent, settled, settledAt };
}

const kinds = (sent: ReadonlyArray<{ readonly message: OutboundMessage }>) => sent.map(({ message }) => message.command ?? "message");

describe("typing while the default handler's turn runs (a real agent)", () => {
  it("a platform that shows typing: before the reply, renewed while the agent works, none after the turn ended", async () => {
    // The agent answers 5 s after its prompt: typing at the start, once more 4 s in, and the turn
    // over well before a third would fall due at 8 s.
    const { sent, settled, settledAt } = await turn("slow 5000", capabilities(true));
    expect(settled.map(({ ok }) => ok)).toEqual([true]);
    const typing = sent.filter(({ message }) => message.command === "typing");
    const reply = sent.find(({ message }) => message.command === undefined);
    expect(reply?.message.content.text).toBe("slow done");
    expect(typing).toHaveLength(2);
    const [first, second] = typing.map(({ ms }) => ms);
    expect(first).toBeLessThan(reply?.ms ?? 0);
    // Renewed 4 s after the first (generous bounds: timers on a busy machine fire late, never early).
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(3_990);
    expect(second).toBeLessThan(reply?.ms ?? 0);
    expect(typing[0]?.message).toEqual({ reply_to: "e1", platform: "telegram", channel: { id: "test-channel" }, content: { type: "text", text: "" }, command: "typing" });
    // No typing once the turn settled (its done reaction may follow it).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sent.filter(({ ms, message }) => message.command === "typing" && ms >= settledAt)).toEqual([]);
  }, 30_000);

  it("a gateway platform: status reactions and the reply, never a typing command", async () => {
    const { sent, settled } = await turn("prose", capabilities(false));
    expect(settled.map(({ ok }) => ok)).toEqual([true]);
    expect(kinds(sent)).toContain("message");
    expect(kinds(sent)).toContain("add_reaction");
    expect(kinds(sent)).not.toContain("typing");
  }, 30_000);
});
