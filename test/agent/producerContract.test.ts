import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { AgentConnection } from "../../src/agent/agentConnection.js";
import { BubbleSink } from "../../src/agent/bubbleSink.js";
import { renderEnvelope } from "../../src/agent/renderEnvelope.js";
import { captureLogs } from "../helpers/logCapture.js";

// The producer's side of the seam (delivery-and-triage.md §10): the same fixture files the broker's
// contract tests (test/contract/) read, never inline copies.
const envelopeFixture = (): Buffer => readFileSync(new URL("../../fixtures/turn-envelope-v1.json", import.meta.url));
const sequentialFixture = (): Buffer => readFileSync(new URL("../../fixtures/sequential-message-v1.json", import.meta.url));

/** The model's `reply` input that the fixture is the rendering of. */
const FIXTURE_INPUT = { messages: ["on it", "your flight moved to 8pm\ngate B12"], next: "stop" };

/** The producer's check: rendering the agreed input gives exactly the fixture's JSON. */
function assertRenderMatches(bytes: Uint8Array): void {
  const fixture: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  const { envelope } = renderEnvelope(FIXTURE_INPUT, { schema: "openab.turn.v1", maxBubbles: 4 });
  expect(envelope).toStrictEqual(fixture);
}

/** The frames a sink writes through a real agent connection, as parsed JSON lines. */
async function sinkFrames(sessionId: string, calls: readonly (readonly string[])[]): Promise<unknown[]> {
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")));
  const connection = new AgentConnection({ input: new PassThrough(), output, logger: captureLogs().logger });
  const sink = new BubbleSink({ sessionId, maxBubbles: 4, send: (method, params) => connection.notify(method, params) });
  for (const texts of calls) await sink.emit(texts);
  return written.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as unknown);
}

/** The producer's check: the second bubble of a turn in session `session_123` is the fixture's frame. */
async function assertSinkMatches(bytes: Uint8Array): Promise<void> {
  const fixture: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  const frames = await sinkFrames("session_123", [["on it"], ["your flight moved to 8pm\ngate B12"]]);
  expect(frames[1]).toStrictEqual(fixture);
}

const mutate = (bytes: Buffer, from: string | RegExp, to: string): Buffer => {
  const original = bytes.toString("utf8");
  const changed = original.replace(from, to);
  expect(changed).not.toBe(original);
  return Buffer.from(changed, "utf8");
};

describe("producer contract: renderEnvelope ↔ fixtures/turn-envelope-v1.json", () => {
  it("render_matches_the_shared_contract_fixture", () => {
    assertRenderMatches(envelopeFixture());
  });

  it("renders the fixture's keys in the fixture's order", () => {
    const { envelope } = renderEnvelope(FIXTURE_INPUT, { maxBubbles: 4 });
    expect(JSON.stringify(envelope)).toBe(JSON.stringify(JSON.parse(envelopeFixture().toString("utf8"))));
  });

  describe("drift: the same check fails on a mutated copy", () => {
    it.each<[string, string | RegExp, string]>([
      ["a renamed key", '"messages"', '"bubbles"'],
      ["a renamed bubble key", '"text": "on it"', '"body": "on it"'],
      ["an extra top-level field", '"next"', '"confidence": 0.9,\n  "next"'],
      ["an extra bubble field", '"id": "bubble_1",', '"id": "bubble_1", "delay_ms": 200,'],
      ["another id scheme", '"bubble_1"', '"b1"'],
      ["a wrong schema", "openab.turn.v1", "openab.turn.v2"],
      ["another next", '"type": "stop"', '"type": "wait"'],
      ["next as a bare string", '{ "type": "stop" }', '"stop"'],
      ["changed bubble text", "8pm", "9pm"],
      ["a split bubble", "8pm\\ngate B12", '8pm" }, { "id": "bubble_3", "text": "gate B12'],
    ])("fails on %s", (_name, from, to) => {
      expect(() => assertRenderMatches(mutate(envelopeFixture(), from, to))).toThrow();
    });
  });
});

describe("producer contract: BubbleSink ↔ fixtures/sequential-message-v1.json", () => {
  it("the sink's frame for the fixture's bubble equals the fixture", async () => {
    await assertSinkMatches(sequentialFixture());
  });

  it("writes each frame as one compact JSON-RPC line", async () => {
    const frames = await sinkFrames("session_123", [["on it", "your flight moved to 8pm\ngate B12"]]);
    expect(JSON.stringify(frames[1])).toBe(JSON.stringify(JSON.parse(sequentialFixture().toString("utf8"))));
  });

  describe("drift: the same check fails on a mutated copy", () => {
    it.each<[string, string | RegExp, string]>([
      ["a renamed discriminator", '"sessionUpdate"', '"session_update"'],
      ["a renamed variant", '"openab_message"', '"openab_bubble"'],
      ["another method", '"session/update"', '"_openab/message"'],
      ["another id", '"bubble_2"', '"bubble_1"'],
      ["a renamed id key", '"id": "bubble_2"', '"bubbleId": "bubble_2"'],
      ["text outside content", /"content": \{[\s\S]*?\}/, '"text": "your flight moved to 8pm\\ngate B12"'],
      ["changed text", "gate B12", "gate C3"],
      ["another session", "session_123", "session_456"],
      ["no jsonrpc version", '"jsonrpc": "2.0",', ""],
    ])("fails on %s", async (_name, from, to) => {
      await expect(assertSinkMatches(mutate(sequentialFixture(), from, to))).rejects.toThrow();
    });
  });
});
