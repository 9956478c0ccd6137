import { describe, expect, it } from "vitest";
import { parseEnvelope, type EnvelopeLimits, type EnvelopeResult, type TurnPlan } from "../../../../operators/delivery/envelope/envelope.js";
import { envelopeError, foundEnvelope, type EnvelopeErrorVariant } from "../../../../operators/delivery/envelope/envelopeError.js";

const limits: EnvelopeLimits = { schema: "openab.turn.v1", maxBubbles: 4, maxBubbleChars: 1200 };
const F = "```";
const NOTICE = "⚠️ _Session expired, starting fresh..._\n\n";

/** E(…) of the reference: compact JSON, ids b1…bn, next stop. */
const E = (...texts: string[]): string =>
  JSON.stringify({ schema: "openab.turn.v1", messages: texts.map((text, i) => ({ id: `b${i + 1}`, text })), next: { type: "stop" } });
const envelope = (fields: Record<string, unknown>): string => JSON.stringify({ schema: "openab.turn.v1", ...fields });

function plan(text: string, overrides: Partial<EnvelopeLimits> = {}): TurnPlan {
  const result = parseEnvelope(text, { ...limits, ...overrides });
  if (!result.ok) throw new Error(`expected a plan, got ${result.error.display}`);
  return result.plan;
}
const texts = (text: string, overrides: Partial<EnvelopeLimits> = {}) => plan(text, overrides).bubbles.map((b) => b.text);

function failure(text: string, overrides: Partial<EnvelopeLimits> = {}): Extract<EnvelopeResult, { ok: false }> {
  const result = parseEnvelope(text, { ...limits, ...overrides });
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.plan)}`);
  return result;
}
/** The error without its display (checked separately), and the leak flag. */
const errorOf = (text: string, overrides: Partial<EnvelopeLimits> = {}) => {
  const { error, foundEnvelope } = failure(text, overrides);
  const { display: _display, ...variant } = error;
  return { ...variant, foundEnvelope };
};

describe("parseEnvelope: structured_delivery.rs", () => {
  it("three_bubbles_keep_their_order", () => {
    expect(plan(E("red", "green", "blue"))).toStrictEqual({
      bubbles: [
        { id: "b1", text: "red" },
        { id: "b2", text: "green" },
        { id: "b3", text: "blue" },
      ],
      next: { type: "stop" },
      silenced: 0,
    });
  });

  it("newlines_stay_inside_one_bubble", () => {
    expect(texts(E("alpha\nbeta\ngamma"))).toStrictEqual(["alpha\nbeta\ngamma"]);
  });

  it("missing_next_defaults_to_stop", () => {
    const result = plan('{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hey"}]}');
    expect(result.bubbles.map((b) => b.text)).toStrictEqual(["hey"]);
    expect(result.next).toStrictEqual({ type: "stop" });
  });

  it("wait_is_preserved_and_still_delivers", () => {
    const result = plan(envelope({ messages: [{ id: "b1", text: "what's the address" }], next: { type: "wait" } }));
    expect(result.bubbles.map((b) => b.text)).toStrictEqual(["what's the address"]);
    expect(result.next).toStrictEqual({ type: "wait" });
  });

  it("tool_proposal_is_carried_through", () => {
    const next = { type: "tool", name: "gmail.search", arguments: { query: "lawyer" } };
    const result = plan(envelope({ messages: [{ id: "b1", text: "on it" }], next }));
    expect(result.bubbles.map((b) => b.text)).toStrictEqual(["on it"]);
    expect(result.next).toStrictEqual(next);
  });

  it("bubble_text_is_trimmed", () => {
    expect(texts(E("  hey  \n"))).toStrictEqual(["hey"]);
  });

  it("silent_sends_nothing", () => {
    expect(plan('{"schema":"openab.turn.v1","messages":[],"next":{"type":"silent"}}')).toStrictEqual({
      bubbles: [],
      next: { type: "silent" },
      silenced: 0,
    });
  });

  it("silent_overrides_non_empty_messages", () => {
    const result = plan(envelope({ messages: [{ id: "b1", text: "ignore me" }], next: { type: "silent" } }));
    expect(result).toStrictEqual({ bubbles: [], next: { type: "silent" }, silenced: 1 });
  });

  it("json_fence_is_tolerated", () => {
    expect(texts(`${F}json\n${E("fenced")}\n${F}`)).toStrictEqual(["fenced"]);
  });

  it("leading_prose_is_tolerated", () => {
    expect(texts(`sure, here you go:\n${E("answer")}`)).toStrictEqual(["answer"]);
  });

  it("session_reset_notice_before_envelope_is_tolerated", () => {
    expect(texts(`${NOTICE}${E("back")}`)).toStrictEqual(["back"]);
  });

  it("braces_inside_bubble_text_do_not_break_scanning", () => {
    expect(texts(E('use {"a": 1} like this }'))).toStrictEqual(['use {"a": 1} like this }']);
  });

  it("multibyte_text_survives_byte_scanning", () => {
    expect(texts(E("今天天氣如何 🌤"))).toStrictEqual(["今天天氣如何 🌤"]);
    expect(texts(`好的 🎉 "這裡":\n${E("今天天氣如何 🌤")}`)).toStrictEqual(["今天天氣如何 🌤"]);
  });

  it("plain_prose_is_not_structured", () => {
    expect(errorOf("hey what's up")).toStrictEqual({ kind: "not_structured", foundEnvelope: false });
  });

  it("unrelated_json_snippet_is_not_an_envelope", () => {
    expect(errorOf('try this config:\n{"retries": 3}')).toStrictEqual({ kind: "not_structured", foundEnvelope: false });
  });

  it("truncated_envelope_is_flagged_not_delivered", () => {
    expect(errorOf('{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"half')).toStrictEqual({ kind: "truncated", foundEnvelope: true });
  });

  it("unknown_top_level_field_is_rejected", () => {
    const text = envelope({ messages: [{ id: "b1", text: "hi" }], next: { type: "stop" }, confidence: 0.9 });
    expect(errorOf(text)).toMatchObject({ kind: "malformed", foundEnvelope: true });
  });

  it("unknown_bubble_field_is_rejected", () => {
    expect(errorOf(envelope({ messages: [{ id: "b1", text: "hi", delay_ms: 200 }] }))).toMatchObject({ kind: "malformed", foundEnvelope: true });
  });

  it("wrong_schema_is_rejected", () => {
    const text = JSON.stringify({ schema: "openab.turn.v2", messages: [{ id: "b1", text: "hi" }], next: { type: "stop" } });
    expect(errorOf(text)).toStrictEqual({ kind: "schema_mismatch", found: "openab.turn.v2", foundEnvelope: true });
  });

  it("too_many_bubbles_is_rejected_not_truncated", () => {
    expect(errorOf(E("1", "2", "3", "4", "5"))).toStrictEqual({ kind: "too_many_bubbles", found: 5, max: 4, foundEnvelope: true });
  });

  it("empty_bubble_text_is_rejected", () => {
    expect(errorOf(E("   "))).toStrictEqual({ kind: "empty_bubble", index: 0, foundEnvelope: true });
  });

  it("blank_bubble_id_is_rejected", () => {
    expect(errorOf(envelope({ messages: [{ id: " ", text: "hi" }] }))).toStrictEqual({ kind: "blank_bubble_id", index: 0, foundEnvelope: true });
  });

  it("duplicate_bubble_id_is_rejected", () => {
    const text = envelope({ messages: [{ id: "b1", text: "one" }, { id: "b1", text: "two" }] });
    expect(errorOf(text)).toStrictEqual({ kind: "duplicate_bubble_id", index: 1, foundEnvelope: true });
  });

  it("over_long_bubble_is_rejected", () => {
    expect(errorOf(E("x".repeat(1201)))).toStrictEqual({ kind: "bubble_too_long", index: 0, chars: 1201, max: 1200, foundEnvelope: true });
  });

  it("zero_max_bubble_chars_disables_the_length_check", () => {
    expect(texts(E("x".repeat(10_000)), { maxBubbleChars: 0 })).toStrictEqual(["x".repeat(10_000)]);
  });

  it("empty_turn_without_silent_is_rejected", () => {
    expect(errorOf(envelope({ messages: [], next: { type: "stop" } }))).toStrictEqual({ kind: "empty_turn", foundEnvelope: true });
  });

  it("unknown_next_type_is_rejected", () => {
    const text = envelope({ messages: [{ id: "b1", text: "hi" }], next: { type: "escalate" } });
    expect(errorOf(text)).toMatchObject({ kind: "malformed", foundEnvelope: true });
  });

  it("error_display_never_carries_bubble_text", () => {
    const text = envelope({ messages: [{ id: "b1", text: "SECRET-CANARY" }, { id: "b1", text: "SECRET-CANARY" }] });
    const { error } = failure(text);
    expect(error.kind).toBe("duplicate_bubble_id");
    expect(error.display).not.toContain("SECRET-CANARY");
  });
});

describe("parseEnvelope: the §3.1 vectors, in table order", () => {
  type Expected = { readonly ok: true; readonly bubbles: string[]; readonly next: unknown } | { readonly ok: false; readonly variant: EnvelopeErrorVariant };
  const ok = (bubbles: string[], next: unknown = { type: "stop" }): Expected => ({ ok: true, bubbles, next });
  const err = (variant: EnvelopeErrorVariant): Expected => ({ ok: false, variant });
  const vectors: [string, string, Partial<EnvelopeLimits>, Expected][] = [
    ["three bubbles", E("red", "green", "blue"), {}, ok(["red", "green", "blue"])],
    ["multi-line bubble", E("alpha\nbeta\ngamma"), {}, ok(["alpha\nbeta\ngamma"])],
    ["no next", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hey"}]}', {}, ok(["hey"])],
    ["next wait", envelope({ messages: [{ id: "b1", text: "what's the address" }], next: { type: "wait" } }), {}, ok(["what's the address"], { type: "wait" })],
    [
      "next tool",
      envelope({ messages: [{ id: "b1", text: "on it" }], next: { type: "tool", name: "gmail.search", arguments: { query: "lawyer" } } }),
      {},
      ok(["on it"], { type: "tool", name: "gmail.search", arguments: { query: "lawyer" } }),
    ],
    ["trimmed text", E("  hey  \n"), {}, ok(["hey"])],
    ["silent, no messages", envelope({ messages: [], next: { type: "silent" } }), {}, ok([], { type: "silent" })],
    ["silent with messages", envelope({ messages: [{ id: "b1", text: "ignore me" }], next: { type: "silent" } }), {}, ok([], { type: "silent" })],
    ["json fence", `${F}json\n${E("fenced")}\n${F}`, {}, ok(["fenced"])],
    ["leading prose", `sure, here you go:\n${E("answer")}`, {}, ok(["answer"])],
    ["reset notice", `${NOTICE}${E("back")}`, {}, ok(["back"])],
    ["braces in text", E('use {"a": 1} like this }'), {}, ok(['use {"a": 1} like this }'])],
    ["multibyte", E("今天天氣如何 🌤"), {}, ok(["今天天氣如何 🌤"])],
    ["plain prose", "hey what's up", {}, err({ kind: "not_structured" })],
    ["unrelated JSON", 'try this config:\n{"retries": 3}', {}, err({ kind: "not_structured" })],
    ["truncated", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"half', {}, err({ kind: "truncated" })],
    [
      "top-level confidence",
      envelope({ messages: [{ id: "b1", text: "hi" }], next: { type: "stop" }, confidence: 0.9 }),
      {},
      err({ kind: "malformed", detail: "unknown field in the envelope, expected `schema`, `messages`, `next`" }),
    ],
    [
      "bubble delay_ms",
      envelope({ messages: [{ id: "b1", text: "hi", delay_ms: 200 }] }),
      {},
      err({ kind: "malformed", detail: "unknown field in `messages[0]`, expected `id`, `text`" }),
    ],
    ["schema v2", E("hi").replace("openab.turn.v1", "openab.turn.v2"), {}, err({ kind: "schema_mismatch", found: "openab.turn.v2" })],
    ["5 bubbles, max 4", E("a", "b", "c", "d", "e"), {}, err({ kind: "too_many_bubbles", found: 5, max: 4 })],
    ["blank text", E("   "), {}, err({ kind: "empty_bubble", index: 0 })],
    ["blank id", envelope({ messages: [{ id: " ", text: "hi" }] }), {}, err({ kind: "blank_bubble_id", index: 0 })],
    ["ids b1, b1", envelope({ messages: [{ id: "b1", text: "x" }, { id: "b1", text: "y" }] }), {}, err({ kind: "duplicate_bubble_id", index: 1 })],
    ["1201 chars, max 1200", E("x".repeat(1201)), {}, err({ kind: "bubble_too_long", index: 0, chars: 1201, max: 1200 })],
    ["10 000 chars, max 0", E("x".repeat(10_000)), { maxBubbleChars: 0 }, ok(["x".repeat(10_000)])],
    ["messages [], next stop", envelope({ messages: [], next: { type: "stop" } }), {}, err({ kind: "empty_turn" })],
    [
      "next escalate",
      envelope({ messages: [{ id: "b1", text: "hi" }], next: { type: "escalate" } }),
      {},
      err({ kind: "malformed", detail: "`next.type` must be one of `stop`, `wait`, `silent`, `tool`" }),
    ],
  ];

  it.each(vectors)("%s", (_name, text, overrides, expected) => {
    const result = parseEnvelope(text, { ...limits, ...overrides });
    if (expected.ok) {
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect(result.plan.bubbles.map((b) => b.text)).toStrictEqual(expected.bubbles);
        expect(result.plan.next).toStrictEqual(expected.next);
      }
    } else {
      expect(result).toStrictEqual({
        ok: false,
        error: envelopeError(expected.variant),
        foundEnvelope: expected.variant.kind !== "not_structured",
      });
    }
  });
});

describe("EnvelopeError display strings (§6), exactly", () => {
  it.each<[EnvelopeErrorVariant, string, boolean]>([
    [{ kind: "not_structured" }, "no openab.turn.v1 envelope in turn output", false],
    [{ kind: "truncated" }, "envelope was truncated (unclosed object)", true],
    [{ kind: "malformed", detail: "missing field `schema`" }, "envelope did not deserialize: missing field `schema`", true],
    [{ kind: "schema_mismatch", found: "openab.turn.v2" }, "unexpected schema `openab.turn.v2`", true],
    [{ kind: "too_many_bubbles", found: 5, max: 4 }, "5 bubbles exceeds max_bubbles=4", true],
    [{ kind: "empty_bubble", index: 0 }, "bubble 0 has empty text", true],
    [{ kind: "blank_bubble_id", index: 2 }, "bubble 2 has a blank id", true],
    [{ kind: "duplicate_bubble_id", index: 1 }, "bubble 1 reuses an id", true],
    [{ kind: "bubble_too_long", index: 0, chars: 1201, max: 1200 }, "bubble 0 is 1201 chars, max_bubble_chars=1200", true],
    [{ kind: "empty_turn" }, "envelope has no bubbles and next.type != silent", true],
  ])("%o → %s", (variant, display, found) => {
    expect(envelopeError(variant)).toStrictEqual({ ...variant, display });
    expect(foundEnvelope(variant)).toBe(found);
  });

  it("names openab.turn.v1 even when [delivery] schema is another", () => {
    expect(failure("hey", { schema: "acme.turn.v3" }).error.display).toBe("no openab.turn.v1 envelope in turn output");
  });

  it("never carries bubble text or JSON, whatever failed", () => {
    const canary = "SECRET-CANARY";
    const bodies = [
      envelope({ messages: [{ id: "b1", text: canary }], next: { type: canary } }),
      envelope({ messages: [{ id: "b1", text: canary, [canary]: 1 }] }),
      envelope({ messages: [{ id: canary, text: canary }], [canary]: true }),
      envelope({ messages: [{ id: "b1", text: canary }], next: { type: "stop", [canary]: 1 } }),
      envelope({ messages: [{ id: "b1", text: 42 }], note: canary }),
      `{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"${canary}"}],}`,
      `{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"${canary}`,
      envelope({ messages: [1, 2, 3, 4, 5].map((i) => ({ id: `b${i}`, text: canary })) }),
      envelope({ messages: [{ id: "b1", text: `${canary}${"x".repeat(1200)}` }] }),
      envelope({ messages: [{ id: "b1", text: canary }, { id: " ", text: canary }] }),
    ];
    for (const body of bodies) {
      const { error } = failure(body);
      expect(error.display).not.toContain(canary);
      expect(error.display).not.toContain("{");
    }
  });
});

describe("parseEnvelope: rules apply in upstream's order", () => {
  it("deserialization comes before the schema check", () => {
    const text = JSON.stringify({ schema: "openab.turn.v2", messages: [], extra: 1 });
    expect(failure(text).error.kind).toBe("malformed");
  });

  it("the schema check comes before the bubble count", () => {
    const text = E("a", "b", "c", "d", "e").replace("openab.turn.v1", "other.v1");
    expect(failure(text).error).toMatchObject({ kind: "schema_mismatch", found: "other.v1" });
  });

  it("the bubble count comes before any per-bubble check, and applies to silent turns", () => {
    const bubbles = [1, 2, 3, 4, 5].map(() => ({ id: " ", text: " " }));
    expect(failure(envelope({ messages: bubbles })).error.kind).toBe("too_many_bubbles");
    expect(failure(envelope({ messages: bubbles, next: { type: "silent" } })).error.kind).toBe("too_many_bubbles");
  });

  it("per bubble: blank id, then duplicate id, then empty text, then length; the first failing bubble wins", () => {
    expect(errorOf(envelope({ messages: [{ id: " ", text: " " }] })).kind).toBe("blank_bubble_id");
    expect(errorOf(envelope({ messages: [{ id: "a", text: "x" }, { id: "a", text: " " }] })).kind).toBe("duplicate_bubble_id");
    expect(errorOf(envelope({ messages: [{ id: "a", text: " " }] }), { maxBubbleChars: 0 }).kind).toBe("empty_bubble");
    expect(errorOf(envelope({ messages: [{ id: "a", text: " ".repeat(1201) }] })).kind).toBe("empty_bubble");
    expect(errorOf(envelope({ messages: [{ id: "a", text: "x".repeat(1201) }, { id: " ", text: "y" }] }))).toMatchObject({
      kind: "bubble_too_long",
      index: 0,
    });
  });

  it("silent wins only after the bubbles validated", () => {
    expect(errorOf(envelope({ messages: [{ id: "b1", text: " " }], next: { type: "silent" } }))).toMatchObject({ kind: "empty_bubble" });
  });

  it("max_bubbles = 0 rejects every non-empty envelope (config requires >= 1)", () => {
    expect(errorOf(E("hi"), { maxBubbles: 0 })).toMatchObject({ kind: "too_many_bubbles", found: 1, max: 0 });
    expect(plan(envelope({ messages: [], next: { type: "silent" } }), { maxBubbles: 0 }).bubbles).toStrictEqual([]);
  });

  it("exactly max_bubbles and exactly max_bubble_chars pass", () => {
    expect(texts(E("a", "b", "c", "d"))).toHaveLength(4);
    expect(texts(E("x".repeat(1200)))).toStrictEqual(["x".repeat(1200)]);
  });
});

describe("parseEnvelope: ids, trimming and chars", () => {
  it("compares ids after trimming, and reports them trimmed", () => {
    expect(errorOf(envelope({ messages: [{ id: " b1", text: "x" }, { id: "b1\t", text: "y" }] }))).toMatchObject({
      kind: "duplicate_bubble_id",
      index: 1,
    });
    expect(plan(envelope({ messages: [{ id: " b1 ", text: "x" }] })).bubbles).toStrictEqual([{ id: "b1", text: "x" }]);
  });

  it("trims as Rust's str::trim: NEL and ideographic space go, a BOM stays", () => {
    expect(texts(E("\u0085\u3000hey\u2003"))).toStrictEqual(["hey"]);
    expect(texts(E("\uFEFFhey"))).toStrictEqual(["\uFEFFhey"]);
    expect(errorOf(E("\u0085\u00a0\u2028"))).toMatchObject({ kind: "empty_bubble" });
  });

  it("counts chars as code points, of the untrimmed text", () => {
    expect(texts(E("🎉".repeat(1200)))).toHaveLength(1);
    expect(errorOf(E("🎉".repeat(1201)))).toMatchObject({ kind: "bubble_too_long", chars: 1201 });
    expect(errorOf(E(` ${"x".repeat(1199)} `))).toMatchObject({ kind: "bubble_too_long", chars: 1201, max: 1200 });
  });

  it("checks the configured schema exactly", () => {
    const acme = E("hi").replace("openab.turn.v1", "acme.turn.v3");
    expect(texts(acme, { schema: "acme.turn.v3" })).toStrictEqual(["hi"]);
    expect(errorOf(E("hi"), { schema: "acme.turn.v3" })).toMatchObject({ kind: "schema_mismatch", found: "openab.turn.v1" });
    expect(errorOf(E("hi").replace("openab.turn.v1", "OPENAB.TURN.V1"))).toMatchObject({ kind: "schema_mismatch" });
    expect(errorOf(E("hi").replace("openab.turn.v1", " openab.turn.v1"))).toMatchObject({ kind: "schema_mismatch" });
  });

  it("finds a silent envelope of another configured schema, which has no messages key", () => {
    expect(plan('{"schema":"acme.turn.v3","next":{"type":"silent"}}', { schema: "acme.turn.v3" }).next).toStrictEqual({ type: "silent" });
  });
});

describe("parseEnvelope: strict decoding, every level (§2)", () => {
  const detail = (text: string) => {
    const { error } = failure(text);
    expect(error.kind).toBe("malformed");
    return error.kind === "malformed" ? error.detail : "";
  };

  it.each<[string, string, string]>([
    ["invalid JSON", '{"schema":"openab.turn.v1","messages":[],}', "not valid JSON"],
    ["missing schema", '{"messages":[{"id":"b1","text":"hi"}]}', "missing field `schema`"],
    ["non-string schema", '{"schema":1,"messages":[{"id":"b1","text":"hi"}]}', "`schema` must be a string"],
    ["null schema", '{"schema":null,"messages":[{"id":"b1","text":"hi"}]}', "`schema` must be a string"],
    ["messages not an array", '{"schema":"openab.turn.v1","messages":{"id":"b1"}}', "`messages` must be an array"],
    ["null messages", '{"schema":"openab.turn.v1","messages":null}', "`messages` must be an array"],
    ["bubble not an object", '{"schema":"openab.turn.v1","messages":["hi"]}', "`messages[0]` must be an object"],
    ["missing id", '{"schema":"openab.turn.v1","messages":[{"text":"hi"}]}', "missing field `messages[0].id`"],
    ["missing text", '{"schema":"openab.turn.v1","messages":[{"id":"b1"},{"id":"b2"}]}', "missing field `messages[0].text`"],
    ["non-string id", '{"schema":"openab.turn.v1","messages":[{"id":1,"text":"hi"}]}', "`messages[0].id` must be a string"],
    ["non-string text", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":["hi"]}]}', "`messages[0].text` must be a string"],
    ["next not an object", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":"stop"}', "`next` must be an object"],
    ["null next", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":null}', "`next` must be an object"],
    ["next without type", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{}}', "missing field `next.type`"],
    ["next type not lowercase", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"STOP"}}', "`next.type` must be one of `stop`, `wait`, `silent`, `tool`"],
    ["stop with a name", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"stop","name":"x"}}', "unknown field in `next`, expected `type`"],
    ["tool without name", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"tool","arguments":{}}}', "missing field `next.name`"],
    ["tool without arguments", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"tool","name":"x"}}', "missing field `next.arguments`"],
    ["tool name not a string", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"tool","name":1,"arguments":{}}}', "`next.name` must be a string"],
    ["tool with extra field", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"tool","name":"x","arguments":{},"why":"y"}}', "unknown field in `next`, expected `type`, `name`, `arguments`"],
    ["escaped lone surrogate", '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"\\ud800"}]}', "`messages[0].text` is not valid Unicode"],
  ])("%s", (_name, text, expected) => {
    expect(detail(text)).toBe(expected);
  });

  it("accepts any JSON value as tool arguments, null included", () => {
    for (const args of [null, 1, "q", [1], { nested: { deep: true } }]) {
      const text = envelope({ messages: [{ id: "b1", text: "on it" }], next: { type: "tool", name: "t", arguments: args } });
      expect(plan(text).next).toStrictEqual({ type: "tool", name: "t", arguments: args });
    }
  });

  it("keeps an escaped surrogate pair (a valid emoji)", () => {
    expect(texts('{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"\\ud83c\\udf89"}]}')).toStrictEqual(["🎉"]);
  });

  it("accepts pretty-printed envelopes and any key order", () => {
    const pretty = JSON.stringify({ next: { type: "stop" }, messages: [{ text: "hi", id: "b1" }], schema: "openab.turn.v1" }, null, 2);
    expect(texts(pretty)).toStrictEqual(["hi"]);
  });
});

describe("parseEnvelope: turnstream's hardened finder (§12 (h))", () => {
  it("finds the envelope behind an odd quote in the prose (upstream: not structured)", () => {
    expect(texts(`he said "hi\n${E("answer")}`)).toStrictEqual(["answer"]);
  });

  it("finds the envelope before an unrelated JSON object (upstream: not structured)", () => {
    expect(texts(`${E("answer")}\nalso: {"retries": 3}`)).toStrictEqual(["answer"]);
    expect(texts(`${E("answer")}\nand {"schema": "draft-07"}`)).toStrictEqual(["answer"]);
  });

  it("flags a truncated envelope behind an odd quote", () => {
    expect(errorOf(`he said "hi\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te`)).toMatchObject({ kind: "truncated", foundEnvelope: true });
  });

  it("does not take a closed JSON object without envelope markers for an envelope, even with a \"schema\" key", () => {
    const prose = 'validate it with {"schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"} first';
    expect(errorOf(prose)).toStrictEqual({ kind: "not_structured", foundEnvelope: false });
  });

  it("still catches a turn cut off before the schema value (key-based, as upstream)", () => {
    expect(errorOf('one sec\n{"schema":')).toStrictEqual({ kind: "truncated", foundEnvelope: true });
  });
});
