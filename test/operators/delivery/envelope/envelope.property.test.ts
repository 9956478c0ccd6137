import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import { planStructuredReply } from "../../../../operators/delivery/envelope/envelopeReply.js";
import { rustTrim } from "../../../../operators/delivery/text/rustWhitespace.js";
import { planStructuredBubbles, type OnParseError, type StructuredOptions } from "../../../../operators/delivery/envelope/structuredBubbles.js";
import { emptyTranscript, reduceTranscript, withAgentError } from "../../../../operators/delivery/turnTranscript.js";

const runs = { numRuns: 200 };
const F = "```";
const ERROR_LINE = "⚠️ something went wrong composing that reply";
const POLICIES: OnParseError[] = ["fallback_text", "error_message", "silent"];
const optionsFor = (onParseError: OnParseError): StructuredOptions => ({
  schema: "openab.turn.v1",
  maxBubbles: 4,
  maxBubbleChars: 1200,
  onParseError,
  parseErrorText: ERROR_LINE,
});

/** Envelope JSON reaching a user: the schema value, or the `"messages"` key of the array. */
const leaksEnvelope = (text: string) => text.includes("openab.turn.v1") || text.includes('"messages"');
const markerFree = (text: string) => !text.includes("openab.turn.") && !text.includes('"messages"');

// ---- Generated agent output: an envelope, damaged, wrapped ----

const tricky = fc.constantFrom("a", "b", "z", " ", "\n", "{", "}", '"', "\\", ":", ",", "[", "]", "好", "🎉", "🌤", "\u0085", "schema", "text");
const bubbleText = fc.string({ unit: tricky, maxLength: 24 }).filter(markerFree);
const bubbleId = fc.constantFrom("b1", "b2", "b3", " ", "", "bubble_1");
const toolArguments = fc.jsonValue({ maxDepth: 2 }).filter((value) => markerFree(JSON.stringify(value)));
const next = fc.oneof(
  fc.constant({ type: "stop" }),
  fc.constant({ type: "wait" }),
  fc.constant({ type: "silent" }),
  fc.record({ type: fc.constant("tool"), name: fc.constantFrom("gmail.search", "t"), arguments: toolArguments }),
  fc.constant({ type: "escalate" }),
);
const envelopeJson = fc
  .record({
    // Mostly well-formed ids, so valid envelopes are common too.
    messages: fc.array(fc.record({ id: fc.option(bubbleId, { freq: 3, nil: undefined }), text: bubbleText }), { maxLength: 6 }),
    next,
    withNext: fc.boolean(),
    pretty: fc.boolean(),
  })
  .map(({ messages, next: nextValue, withNext, pretty }) => {
    const bubbles = messages.map(({ id, text }, i) => ({ id: id ?? `b${i + 1}`, text }));
    return JSON.stringify({ schema: "openab.turn.v1", messages: bubbles, ...(withNext ? { next: nextValue } : {}) }, null, pretty ? 2 : undefined);
  });

type Damage = (json: string) => string;
const at = (json: string, where: number) => Math.floor(where * json.length);
const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.constant<Damage>((json) => json),
  // Truncated at any point, including before the schema value.
  fc.double({ min: 0, max: 1, noNaN: true }).map<Damage>((where) => (json) => json.slice(0, Math.max(1, at(json, where)))),
  // One character lost, added or replaced anywhere (quotes and braces included).
  fc.double({ min: 0, max: 1, noNaN: true }).map<Damage>((where) => (json) => json.slice(0, at(json, where)) + json.slice(at(json, where) + 1)),
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('"', "{", "}", ",", "\\", "x", "]"), fc.boolean())
    .map<Damage>(([where, char, replace]) => (json) => json.slice(0, at(json, where)) + char + json.slice(at(json, where) + (replace ? 1 : 0))),
  // Strictness: an extra field, a wrong schema, a renamed key.
  fc.constant<Damage>((json) => json.replace("{", '{"confidence":0.9,')),
  fc.constant<Damage>((json) => json.replace("openab.turn.v1", "openab.turn.v2")),
  fc.constant<Damage>((json) => json.replace('"text"', '"txt"')),
);

const proseUnit = fc.constantFrom("sure", "here you go", "one sec", " ", "\n", ":", '"', "'", "it's", "好的", "🎉", "{", "}");
const jsonSnippet = fc.constantFrom('{"retries": 3}', '{"schema": "draft-07"}', '{"a":1}', '{"b":', "}");
const prose = fc
  .array(fc.oneof({ arbitrary: fc.string({ unit: proseUnit, maxLength: 8 }), weight: 4 }, { arbitrary: jsonSnippet, weight: 1 }), { maxLength: 3 })
  .map((parts) => parts.join(" "));
const agentOutput = fc
  .record({
    json: envelopeJson,
    damage,
    before: prose,
    after: prose,
    fence: fc.boolean(),
    notice: fc.boolean(),
  })
  .map(({ json, damage: damageIt, before, after, fence, notice }) => {
    const envelope = damageIt(json);
    const wrapped = fence ? `${F}json\n${envelope}\n${F}` : envelope;
    return `${notice ? "⚠️ _Session expired, starting fresh..._\n\n" : ""}${before}${before === "" ? "" : "\n"}${wrapped}${after === "" ? "" : "\n"}${after}`;
  });

describe("structured delivery never leaks the envelope", () => {
  test.prop([agentOutput, fc.constantFrom(...POLICIES)], runs)(
    "no delivered bubble holds the schema value or a \"messages\" fragment, under every policy",
    (body, policy) => {
      const plan = planStructuredBubbles(body, optionsFor(policy));
      const bubbles = plan.kind === "bubbles" ? plan.bubbles : [];
      for (const bubble of bubbles) expect(leaksEnvelope(bubble)).toBe(false);
      if (plan.parseFailure !== undefined) {
        // The logged reason carries no document content, except the schema name a mismatch quotes
        // as upstream does (envelopeError.ts); a damaged name may hold any character, even "{".
        if (plan.parseFailure.kind === "schema_mismatch") expect(plan.parseFailure.error).toMatch(/^unexpected schema `.*`$/);
        else expect(plan.parseFailure.error).not.toContain("{");
        expect(plan.parseFailure.policy).toBe(policy);
      }
    },
  );

  test.prop([agentOutput, fc.constantFrom(...POLICIES), fc.boolean(), fc.boolean(), fc.boolean()], runs)(
    "nor does a whole structured turn: directives, a reset, tools, an agent error",
    (body, policy, reset, toolRan, failed) => {
      const events: AgentEvent[] = [
        ...(reset ? [{ type: "session_reset" } as const] : []),
        { type: "text", text: "[[reply_to:42]]\n" },
        ...(toolRan ? ([{ type: "tool_start", id: "t", title: "search" }, { type: "tool_done", id: "t", status: "completed" }] as const) : []),
        { type: "text", text: body },
      ];
      const transcript = events.reduce(reduceTranscript, emptyTranscript());
      const reply = planStructuredReply(failed ? withAgentError(transcript, new Error("Agent process died")) : transcript, optionsFor(policy));
      for (const bubble of reply.bubbles) expect(leaksEnvelope(bubble)).toBe(false);
      expect(reply.silent).toBe(reply.bubbles.length === 0);
    },
  );
});

// ---- Prose that only quotes unrelated JSON ----

const plainProse = fc
  .string({ unit: fc.constantFrom("use", "this", "config", " ", "\n", ":", "好", "🎉", "'", "schema", "-"), minLength: 1, maxLength: 12 })
  .filter((text) => rustTrim(text) !== "");
const snippetValue = fc.jsonValue({ maxDepth: 2 }).filter((value) => markerFree(JSON.stringify(value)));
const snippetKey = fc.constantFrom("schema", "type", "name", "retries", "$id", "properties", "next", "id", "text");
const unrelatedJson = fc
  .tuple(fc.dictionary(snippetKey, snippetValue, { maxKeys: 4 }), fc.boolean(), fc.boolean())
  .map(([fields, withSchema, pretty]) =>
    JSON.stringify(withSchema ? { schema: "https://json-schema.org/draft/2020-12/schema", ...fields } : fields, null, pretty ? 2 : undefined),
  );
const proseWithJson = fc
  .tuple(plainProse, unrelatedJson, plainProse, fc.option(unrelatedJson, { nil: undefined }))
  .map(([before, json, after, second]) => `${before}${json}${after}${second ?? ""}`);

describe("prose quoting unrelated JSON is delivered unchanged", () => {
  test.prop([proseWithJson], runs)("under fallback_text: the body as written (trimmed), one bubble", (body) => {
    const plan = planStructuredBubbles(body, optionsFor("fallback_text"));
    expect(plan).toMatchObject({ kind: "bubbles", bubbles: [rustTrim(body)], parseFailure: { kind: "not_structured" } });
  });

  test.prop([proseWithJson], runs)("under the other policies: the policy's answer, never a piece of the prose", (body) => {
    expect(planStructuredBubbles(body, optionsFor("error_message"))).toMatchObject({ kind: "bubbles", bubbles: [ERROR_LINE] });
    expect(planStructuredBubbles(body, optionsFor("silent"))).toMatchObject({ kind: "nothing", reason: "parse_error" });
  });
});
