import { describe, expect, it } from "vitest";
import {
  planStructuredBubbles,
  type OnParseError,
  type StructuredOptions,
} from "../../../../operators/delivery/envelope/structuredBubbles.js";
import { ConfigError, defaultConfig, parseConfigText } from "../../../../src/config/index.js";

const ERROR_LINE = "⚠️ something went wrong composing that reply";
const defaults: StructuredOptions = {
  schema: "openab.turn.v1",
  maxBubbles: 4,
  maxBubbleChars: 1200,
  onParseError: "fallback_text",
  parseErrorText: ERROR_LINE,
};
const POLICIES: OnParseError[] = ["fallback_text", "error_message", "silent"];
const F = "```";
const E = (...texts: string[]): string =>
  JSON.stringify({ schema: "openab.turn.v1", messages: texts.map((text, i) => ({ id: `b${i + 1}`, text })), next: { type: "stop" } });
const SILENT = '{"schema":"openab.turn.v1","messages":[],"next":{"type":"silent"}}';
const V9_CANARY = '{"schema":"openab.turn.v9","messages":[{"id":"b1","text":"CANARY"}],"next":{"type":"stop"}}';
const BROKEN = 'one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te';

const planWith = (body: string, onParseError: OnParseError = "fallback_text") => planStructuredBubbles(body, { ...defaults, onParseError });
/** What reaches the user: the bubbles, or `null` for "send nothing". */
const sent = (body: string, onParseError: OnParseError = "fallback_text") => {
  const plan = planWith(body, onParseError);
  return plan.kind === "bubbles" ? plan.bubbles : null;
};

describe("planStructuredBubbles: adapter.rs structured_delivery_tests", () => {
  it("plan_returns_bubbles_in_order", () => {
    for (const policy of POLICIES) expect(sent(E("red", "green", "blue"), policy)).toStrictEqual(["red", "green", "blue"]);
  });

  it("plan_returns_none_on_silent", () => {
    for (const policy of POLICIES) expect(sent(SILENT, policy)).toBeNull();
  });

  it("plan_falls_back_to_prose_verbatim", () => {
    expect(sent("hey what's up")).toStrictEqual(["hey what's up"]);
  });

  it("plan_never_falls_back_to_raw_json", () => {
    const bubbles = sent(`here:\n${V9_CANARY}`);
    expect(bubbles).toStrictEqual(["here:"]);
    expect(bubbles?.join()).not.toContain("CANARY");
  });

  it("plan_never_falls_back_to_truncated_json", () => {
    expect(sent(BROKEN)).toStrictEqual(["one sec"]);
  });

  it("plan_uses_the_error_line_when_stripping_leaves_nothing", () => {
    expect(sent(V9_CANARY)).toStrictEqual([ERROR_LINE]);
  });

  it("plan_honors_error_message_policy", () => {
    expect(sent("plain prose", "error_message")).toStrictEqual([ERROR_LINE]);
  });

  it("plan_honors_silent_policy", () => {
    expect(sent("plain prose", "silent")).toBeNull();
  });
});

describe("planStructuredBubbles: the §7 table", () => {
  it.each<[string, string, OnParseError[], string[] | null]>([
    ["three bubbles", E("red", "green", "blue"), POLICIES, ["red", "green", "blue"]],
    ["silent envelope", SILENT, POLICIES, null],
    ["prose", "hey what's up", ["fallback_text"], ["hey what's up"]],
    ["wrong schema after prose", `here:\n${V9_CANARY}`, ["fallback_text"], ["here:"]],
    ["truncated after prose", BROKEN, ["fallback_text"], ["one sec"]],
    ["wrong schema alone", V9_CANARY, ["fallback_text"], [ERROR_LINE]],
    ["prose, error_message", "plain prose", ["error_message"], [ERROR_LINE]],
    ["prose, silent", "plain prose", ["silent"], null],
  ])("%s", (_name, body, policies, expected) => {
    for (const policy of policies) expect(sent(body, policy)).toStrictEqual(expected);
  });
});

describe("planStructuredBubbles: what the caller logs", () => {
  it("a parse failure carries the display string and the policy (`structured turn did not parse`)", () => {
    expect(planWith(`sorry, one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te`)).toStrictEqual({
      kind: "bubbles",
      bubbles: ["sorry, one sec"],
      parseFailure: { error: "envelope was truncated (unclosed object)", policy: "fallback_text", kind: "truncated" },
    });
    expect(planWith("plain prose", "silent")).toStrictEqual({
      kind: "nothing",
      reason: "parse_error",
      parseFailure: { error: "no openab.turn.v1 envelope in turn output", policy: "silent", kind: "not_structured" },
    });
    expect(planWith(E("a", "b", "c", "d", "e"), "error_message")).toStrictEqual({
      kind: "bubbles",
      bubbles: [ERROR_LINE],
      parseFailure: { error: "5 bubbles exceeds max_bubbles=4", policy: "error_message", kind: "too_many_bubbles" },
    });
  });

  it("a tool proposal is returned for the log, never executed", () => {
    const next = { type: "tool", name: "gmail.search", arguments: { query: "lawyer" } } as const;
    const body = JSON.stringify({ schema: "openab.turn.v1", messages: [{ id: "b1", text: "on it" }], next });
    expect(planWith(body)).toStrictEqual({
      kind: "bubbles",
      bubbles: ["on it"],
      next,
      toolProposal: { name: "gmail.search", arguments: { query: "lawyer" } },
    });
  });

  it("a silent turn reports its next (`structured turn delivered nothing`) and any bubbles it silenced", () => {
    expect(planWith(SILENT)).toStrictEqual({ kind: "nothing", reason: "silent_turn", next: { type: "silent" } });
    const declared = '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"ignore me"}],"next":{"type":"silent"}}';
    expect(planWith(declared)).toStrictEqual({ kind: "nothing", reason: "silent_turn", next: { type: "silent" }, silenced: 1 });
  });

  it("a clean turn logs nothing extra", () => {
    expect(planWith(E("hi"))).toStrictEqual({ kind: "bubbles", bubbles: ["hi"], next: { type: "stop" } });
  });
});

describe("planStructuredBubbles: fallback_text never sends envelope JSON", () => {
  it("sends prose verbatim, trimmed as Rust trims", () => {
    expect(sent("\n  hey what's up \u0085")).toStrictEqual(["hey what's up"]);
    expect(sent('try this config:\n{"retries": 3}')).toStrictEqual(['try this config:\n{"retries": 3}']);
  });

  it("drops the code fence around a broken envelope instead of sending an empty code block (§12 (f))", () => {
    const fenced = `${F}json\n${V9_CANARY}\n${F}`;
    expect(sent(fenced)).toStrictEqual([ERROR_LINE]);
    expect(sent(`here:\n${fenced}\nthanks`)).toStrictEqual(["here:\n\nthanks"]);
  });

  it("strips the envelope upstream leaks verbatim (§12 (h))", () => {
    const broken = E("a", "b", "c", "d", "e");
    expect(sent(`he said "hi\n${broken}`)).toStrictEqual(['he said "hi']);
    expect(sent(`${broken}\nalso: {"retries": 3}`)).toStrictEqual(['also: {"retries": 3}']);
  });

  it("sends the error line for a body whose envelope cannot be placed", () => {
    const noBrace = '"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}]}';
    expect(planWith(noBrace)).toMatchObject({ bubbles: [ERROR_LINE], parseFailure: { kind: "not_structured" } });
  });

  it("sends the error line for an empty body (upstream: not structured, never `_(no response)_`)", () => {
    expect(sent("")).toStrictEqual([ERROR_LINE]);
    expect(sent(" \n ")).toStrictEqual([ERROR_LINE]);
  });

  it("delivers prose with an unrelated JSON snippet unchanged, even one with a \"schema\" key", () => {
    const prose = 'use {"schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"} to validate';
    expect(sent(prose)).toStrictEqual([prose]);
  });

  it("uses the configured parse_error_text", () => {
    expect(planStructuredBubbles(V9_CANARY, { ...defaults, parseErrorText: "oops" })).toMatchObject({ bubbles: ["oops"] });
    expect(planStructuredBubbles("x", { ...defaults, onParseError: "error_message", parseErrorText: "oops" })).toMatchObject({ bubbles: ["oops"] });
  });
});

describe("[delivery] settings the plan reads: structured_delivery.rs config tests", () => {
  const delivery = (toml: string) => parseConfigText(`[delivery]\n${toml}\n`).delivery;

  it("delivery_mode_defaults_to_text", () => {
    expect(defaultConfig({}).delivery.mode).toBe("text");
  });

  it("delivery_mode_deserializes_known_values", () => {
    expect(delivery('mode = "structured"').mode).toBe("structured");
    expect(delivery('mode = "sequential"').mode).toBe("sequential");
    expect(delivery('mode = "TEXT"').mode).toBe("text");
    expect(() => delivery('mode = "bubblez"')).toThrow(ConfigError);
  });

  it("only_text_mode_keeps_streaming", () => {
    // Upstream forces streaming off in bubble modes; turnstream refuses the combination at
    // start-up instead of ignoring the key (bubble modes never keep inter-tool narration either,
    // see envelopeReply.test.ts).
    const gateway = `[gateway]\nurl = "ws://127.0.0.1:8765"\n`;
    expect(parseConfigText(`${gateway}streaming = true\n[delivery]\nmode = "text"\n`).gateway?.streaming).toBe(true);
    for (const mode of ["structured", "sequential"]) {
      expect(() => parseConfigText(`${gateway}streaming = true\n[delivery]\nmode = "${mode}"\n`)).toThrow(ConfigError);
    }
    for (const mode of ["text", "structured", "sequential"]) expect(parseConfigText(`${gateway}[delivery]\nmode = "${mode}"\n`).gateway?.streaming).toBe(false);
  });

  it("parse_error_policy_defaults_to_fallback_text", () => {
    const config = defaultConfig({}).delivery;
    expect(config.on_parse_error).toBe("fallback_text");
    expect(config.parse_error_text).toBe(ERROR_LINE);
    expect(config).toMatchObject({ schema: "openab.turn.v1", max_bubbles: 4, max_bubble_chars: 1200 });
  });
});

// Issue 17, hole 3: the envelope is judged by what its JSON decodes to, not by its spelling.
describe("planStructuredBubbles: a \\u-escaped envelope (issue 17)", () => {
  const ESCAPED = '{"\\u0073chema":"\\u006fpenab.turn.v1","\\u006dessages":[{"id":"b1","text":"the secret plan"}],"next":{"type":"stop"}}';

  it("the issue's example is delivered as its bubble, under every policy", () => {
    for (const policy of POLICIES) expect(planWith(`Sure!\n${ESCAPED}`, policy)).toStrictEqual({ kind: "bubbles", bubbles: ["the secret plan"], next: { type: "stop" } });
  });

  it("whitespace, \\/ and upper-case hex change nothing", () => {
    const spelled = '{\r\n\t"\\u0073CHEMA"\n: "\\u006F\\u0070enab.turn.v1" ,\t"messages" : [ { "id" : "b1" , "text" : "a\\/b" } ] }';
    // `\u0073CHEMA` is not `schema`: the key must decode exactly; this one is an unknown field.
    expect(planWith(`Sure!\n${spelled}`, "error_message")).toMatchObject({ bubbles: [ERROR_LINE], parseFailure: { kind: "malformed" } });
    const exact = spelled.replace("\\u0073CHEMA", "\\u0073chema");
    for (const policy of POLICIES) expect(sent(`Sure!\n${F}json\n${exact}\n${F}`, policy)).toStrictEqual(["a/b"]);
  });

  it.each<[string, string]>([
    ["an unknown field", ESCAPED.replace("{", '{"\\u0063onfidence":0.9,')],
    ["another schema", ESCAPED.replace("turn.v1", "turn.v\\u0032")],
    ["cut off after the schema value", ESCAPED.slice(0, 40)],
    ["cut off inside the first key", ESCAPED.slice(0, 8)],
    ["cut off after the brace", "{"],
  ])("a broken variant (%s) sends the policy's answer, never its `{`", (_name, broken) => {
    const body = `Sure!\n${broken}`;
    expect(sent(body, "fallback_text")).toStrictEqual(["Sure!"]);
    expect(sent(body, "error_message")).toStrictEqual([ERROR_LINE]);
    expect(sent(body, "silent")).toBeNull();
  });

  it("an object cut off before any envelope key is prose (what the guard does not promise)", () => {
    expect(sent('Sure!\n{"confidence":0.9,"sch')).toStrictEqual(['Sure!\n{"confidence":0.9,"sch']);
  });

  it("the envelope's JSON after a stray `}` goes with it", () => {
    const early = ESCAPED.replace('"\\u006dessages":[', '"\\u006dessages":[}');
    expect(sent(`Sure!\n${early}\nbye`)).toStrictEqual(["Sure!\n\nbye"]);
  });
});
