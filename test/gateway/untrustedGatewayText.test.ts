import { afterEach, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { DevGateway, devEvent, type DevGatewayOptions } from "../../src/devgateway/devGateway.js";
import { GatewayConnector } from "../../src/gateway/connector.js";
import { createLogger } from "../../src/log/logger.js";
import { SendError } from "../../src/wire/index.js";
import { until } from "../helpers/stack.js";
import { CONTROL_CHARS, expectRecordsBoundedClean } from "../helpers/untrusted.js";
import { defaultIngress } from "../helpers/ingressRules.js";

// Issue 17, hole 5: whatever a gateway writes into an ack, an event's ids or its hello reaches a
// log line or a caller bounded (500 chars) and without control characters or escapes.

/** ~1 MB of text that tries everything: colour, a title-setting OSC, NULs, CR/LF, a bidi override. */
const HOSTILE = `\u001b[31mboom\u001b[0m\u0000\r\n{"level":60,"msg":"forged"}\u001b]0;pwned\u0007\u202eevil `.repeat(16_000);

const message: OutboundMessage = { reply_to: "evt-1", platform: "telegram", channel: { id: "chat-1" }, content: { type: "text", text: "on it" } };

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A connector on a real DevGateway, logging raw JSON lines into memory. */
async function connect(gatewayOptions: DevGatewayOptions = {}) {
  const gateway = await DevGateway.start(gatewayOptions);
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", destination: { write: (line: string) => void lines.push(line) } });
  const connector = new GatewayConnector({
    url: gateway.url,
    ingress: defaultIngress,
    token: gateway.token,
    logger,
    maxFrameBytes: 8 << 20,
    clientVersion: "test",
    legacyAckTimeoutMs: 2_000,
    requiredAckTimeoutMs: 2_000,
    streaming: false,
    streamingPlaceholder: true,
    backoff: { initialMs: 50, maxMs: 200 },
  });
  cleanup.push(() => gateway.close(), () => connector.close());
  connector.start();
  await until(() => connector.isConnected, 10_000);
  return { connector, gateway, lines, logger };
}

/** Asserts every line is small and clean; returns the longest line's length. */
function expectBoundedClean(lines: readonly string[], maxLineChars: number): number {
  for (const line of lines) expect(line).not.toMatch(/\\u00(00|1b|07)|\\r/);
  return expectRecordsBoundedClean(lines.map((line) => JSON.parse(line) as object), maxLineChars);
}

describe("untrusted text from the gateway", () => {
  it("a 1 MB rejection full of escapes and NULs becomes a bounded, clean SendError and small log lines", async () => {
    const { connector, lines } = await connect({ ack: () => ({ success: false, outcome: "rejected", error_code: `rate\u001b[5m_limited${HOSTILE}`, error: HOSTILE }) });
    const failure = await connector.send(message, { wantAck: true }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SendError);
    const error = failure as SendError;
    expect(error.message.startsWith("gateway rejected write (rate_limited")).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual(700);
    expect(error.code.length).toBeLessThanOrEqual(100);
    expect(CONTROL_CHARS.test(error.message) || CONTROL_CHARS.test(error.code) || /[\r\n]/.test(error.message)).toBe(false);
    expect(error.message).toMatch(/…\(\+[\d,]+ chars\)$/);
    const longest = expectBoundedClean(lines, 4_096);
    console.info(`hostile 1 MB ack error: SendError.message ${error.message.length} chars, longest log line ${longest} chars`);
  });

  it("an unknown outcome's 1 MB error is bounded too", async () => {
    const { connector, lines } = await connect({ ack: () => ({ outcome: "what\u0000ever", error: HOSTILE }) });
    const failure = (await connector.send(message, { wantAck: true }).catch((err: unknown) => err)) as SendError;
    expect(failure.code).toBe("unknown");
    expect(failure.message.length).toBeLessThanOrEqual(600);
    expect(CONTROL_CHARS.test(failure.message)).toBe(false);
    expectBoundedClean(lines, 4_096);
  });

  it("an event whose ids carry control characters or run long is taken with its ids exact, and logged small and clean", async () => {
    const { connector, gateway, lines, logger } = await connect();
    const events: string[] = [];
    connector.events.subscribe((event) => events.push(event.event_id));
    const hostileId = `evt\u001b[2J${HOSTILE}`;
    gateway.broadcast({ ...devEvent("hi"), event_id: hostileId });
    gateway.broadcast({ ...devEvent("hi"), event_id: "evt-nul", channel: { id: "chat\u0000", type: "dm" } });
    gateway.broadcast({ ...devEvent("hi"), event_id: "evt-long", sender: { id: "x".repeat(600), name: "n", display_name: "n", is_bot: false } });
    gateway.broadcast({ ...devEvent("hi"), event_id: "evt-ok", content: { type: "text", text: HOSTILE } });
    await until(() => events.length === 4, 10_000);
    // Nothing is lost for how its ids are spelled: the ids route the reply, so they stay exact.
    expect(events).toEqual([hostileId, "evt-nul", "evt-long", "evt-ok"]);
    expect(lines.some((line) => line.includes("gateway frame dropped"))).toBe(false);
    // The backstop: however a source logs these ids, the line is bounded and clean.
    logger.info({ event_id: hostileId, channel: { id: "chat\u0000" } }, "probe");
    expectBoundedClean(lines, 4_096);
  });

  it("a hello's strings are logged clean", async () => {
    const { lines } = await connect({
      hello: { capabilities: { telegram: { send_ack: true } }, topology: { supported: false, active_consumers: 2, delivery_mode: `broad\u001b[31mcast${HOSTILE}` } },
    });
    await until(() => lines.some((line) => line.includes("unsupported multi-consumer topology")), 10_000);
    const topology = JSON.parse(lines.find((line) => line.includes("unsupported multi-consumer topology")) ?? "{}") as { delivery_mode: string };
    expect(topology.delivery_mode.startsWith("broadcast")).toBe(true);
    expectBoundedClean(lines, 4_096);
  });
});
