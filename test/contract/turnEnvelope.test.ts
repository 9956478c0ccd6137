import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseEnvelope } from "../../operators/delivery/envelope/envelope.js";

// The seam between agent and broker (`delivery-and-triage.md` §10): the shared fixture's bytes,
// never an inline copy, so a change on either side shows up here.
const FIXTURE = new URL("../../fixtures/turn-envelope-v1.json", import.meta.url);
const CONTRACT_BUBBLES = ["on it", "your flight moved to 8pm\ngate B12"];

/** The broker's side of the contract: these bytes parse into exactly the agreed bubbles, next stop. */
function assertTurnEnvelopeContract(bytes: Uint8Array): void {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const result = parseEnvelope(text, { schema: "openab.turn.v1", maxBubbles: 4, maxBubbleChars: 1200 });
  if (!result.ok) throw new Error(`turn-envelope-v1.json no longer parses: ${result.error.display}`);
  expect(result.plan.bubbles.map((bubble) => bubble.text)).toStrictEqual(CONTRACT_BUBBLES);
  expect(result.plan.next).toStrictEqual({ type: "stop" });
}

const fixtureBytes = (): Buffer => readFileSync(FIXTURE);
/** A copy of the fixture with one textual change, as bytes. */
const mutated = (from: string | RegExp, to: string): Buffer => {
  const original = fixtureBytes().toString("utf8");
  const changed = original.replace(from, to);
  expect(changed).not.toBe(original);
  return Buffer.from(changed, "utf8");
};

describe("turn-envelope-v1.json: the agent/broker contract", () => {
  it("the_agents_envelope_parses_into_the_expected_bubbles", () => {
    assertTurnEnvelopeContract(fixtureBytes());
  });

  it("keeps the second bubble's two lines in one bubble", () => {
    const result = parseEnvelope(fixtureBytes().toString("utf8"), { schema: "openab.turn.v1", maxBubbles: 4, maxBubbleChars: 1200 });
    expect(result.ok && result.plan.bubbles.map((bubble) => bubble.text.split("\n").length)).toStrictEqual([1, 2]);
    expect(result.ok && result.plan.bubbles.map((bubble) => bubble.id)).toStrictEqual(["bubble_1", "bubble_2"]);
  });
});

describe("turn-envelope-v1.json: the contract check catches drift", () => {
  it.each<[string, string | RegExp, string]>([
    ["a renamed key", '"messages"', '"bubbles"'],
    ["a renamed bubble key", '"text": "on it"', '"body": "on it"'],
    ["an extra top-level field", '"next"', '"confidence": 0.9,\n  "next"'],
    ["an extra bubble field", '"id": "bubble_1",', '"id": "bubble_1", "delay_ms": 200,'],
    ["an extra next field", '"type": "stop"', '"type": "stop", "reason": "done"'],
    ["a wrong schema", "openab.turn.v1", "openab.turn.v2"],
    ["another next", '"type": "stop"', '"type": "wait"'],
    ["changed bubble text", "8pm", "9pm"],
    ["a split bubble", "8pm\\ngate B12", '8pm" }, { "id": "bubble_3", "text": "gate B12'],
    ["a truncated file", /\}\s*$/, ""],
  ])("rejects %s", (_name, from, to) => {
    expect(() => assertTurnEnvelopeContract(mutated(from, to))).toThrow();
  });

  it("rejects bytes that are not UTF-8", () => {
    const bytes = fixtureBytes();
    const broken = Buffer.concat([bytes.subarray(0, 10), Buffer.from([0xff]), bytes.subarray(10)]);
    expect(() => assertTurnEnvelopeContract(broken)).toThrow();
  });
});
