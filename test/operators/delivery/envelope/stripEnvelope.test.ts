import { describe, expect, it } from "vitest";
import { proseAroundEnvelope, stripEnvelope } from "../../../../operators/delivery/envelope/stripEnvelope.js";

const E = '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"stop"}}';
const CANARY_E = '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"CANARY"}],"next":{"type":"stop"}}';
const TRUNCATED = '{"schema":"openab.turn.v1","messages":[{"id":"b1","te';
const F = "```";

describe("stripEnvelope: structured_delivery.rs", () => {
  it("strip_removes_a_whole_envelope", () => {
    const stripped = stripEnvelope(`here you go:\n${CANARY_E}\nhope that helps`);
    expect(stripped).toBe("here you go:\n\nhope that helps");
    expect(stripped).not.toContain("CANARY");
    expect(stripped).not.toContain("schema");
  });

  it("strip_removes_a_truncated_envelope", () => {
    const stripped = stripEnvelope(`sorry, one sec\n${TRUNCATED}`);
    expect(stripped).toBe("sorry, one sec");
    expect(stripped).not.toContain("{");
  });

  it("strip_leaves_ordinary_prose_untouched", () => {
    expect(stripEnvelope('try this config:\n{"retries": 3}')).toBe('try this config:\n{"retries": 3}');
  });

  it("strip_can_return_empty_when_the_turn_was_only_an_envelope", () => {
    expect(stripEnvelope(E)).toBe("");
  });
});

describe("stripEnvelope: the §4 vectors", () => {
  it.each<[string, string, string]>([
    ["prose", "hey what's up", "hey what's up"],
    ["unrelated JSON", 'try this config:\n{"retries": 3}', 'try this config:\n{"retries": 3}'],
    ["only the envelope", E, ""],
    ["leading prose", `sure, here you go:\n${E}`, "sure, here you go:"],
    ["prose around", `here you go:\n${E}\nhope that helps`, "here you go:\n\nhope that helps"],
    // Upstream's empty code block; `proseAroundEnvelope` drops it (§12 (f)).
    ["json fence", `${F}json\n${E}\n${F}`, `${F}json\n\n${F}`],
    ["balanced quotes", `it's "quoted" fine\n${E}`, `it's "quoted" fine`],
    ["truncated", `sorry, one sec\n${TRUNCATED}`, "sorry, one sec"],
    ["unrelated objects", '{"a":1} then {"b":2', '{"a":1} then {"b":2'],
    ["stray brace", `${E}\n}`, "}"],
  ])("%s", (_name, text, expected) => {
    expect(stripEnvelope(text)).toBe(expected);
  });

  it("trims as Rust does when there is no envelope", () => {
    expect(stripEnvelope("\u0085 hey \u3000")).toBe("hey");
  });

  it("strips what upstream leaks (§12 (h)): upstream returns both texts unchanged", () => {
    expect(stripEnvelope(`${E}\nalso: {"retries": 3}`)).toBe('also: {"retries": 3}');
    expect(stripEnvelope(`he said "hi\n${E}`)).toBe('he said "hi');
  });
});

describe("proseAroundEnvelope: what fallback_text may send", () => {
  it("is stripEnvelope where no fence or second envelope is involved", () => {
    for (const text of [`here you go:\n${CANARY_E}\nhope that helps`, `sorry, one sec\n${TRUNCATED}`, E, "hey what's up"]) {
      expect(proseAroundEnvelope(text)).toBe(stripEnvelope(text));
    }
  });

  it("drops the code fence that only held the envelope (§12 (f))", () => {
    expect(proseAroundEnvelope(`${F}json\n${E}\n${F}`)).toBe("");
    expect(proseAroundEnvelope(`here:\n${F}json\n${E}\n${F}\nbye`)).toBe("here:\n\nbye");
    expect(proseAroundEnvelope(`here:\n${F}\n  ${E}  \n${F}`)).toBe("here:");
  });

  it("drops the opener of a fence whose envelope was cut off", () => {
    expect(proseAroundEnvelope(`one sec\n${F}json\n${TRUNCATED}`)).toBe("one sec");
  });

  it("leaves a fence that closes an earlier block alone", () => {
    expect(proseAroundEnvelope(`${F}\ncode\n${F}\n${E}`)).toBe(`${F}\ncode\n${F}`);
    expect(proseAroundEnvelope(`${F}\ncode\n${F}\n${E}\n${F}`)).toBe(`${F}\ncode\n${F}\n\n${F}`);
  });

  it("keeps a fence that holds more than the envelope", () => {
    expect(proseAroundEnvelope(`${F}json\n{"retries": 3}\n${E}\n${F}`)).toBe(`${F}json\n{"retries": 3}\n\n${F}`);
  });

  it("strips every envelope, not only the one the parse looked at", () => {
    expect(proseAroundEnvelope(`${E}\nthen\n${E}`)).toBe("then");
    expect(proseAroundEnvelope(`${E}\n{"messages": 1}`)).toBe("");
    expect(proseAroundEnvelope(`first ${CANARY_E} then ${TRUNCATED}`)).toBe("first  then");
  });

  it("gives nothing rather than text that still holds envelope markers", () => {
    const mangled = '"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}]}';
    expect(proseAroundEnvelope(mangled)).toBe("");
    expect(proseAroundEnvelope(`ok ${E} see openab.turn.v1`)).toBe("");
  });

  it("counts the configured schema as a marker", () => {
    const acme = '{"schema":"acme.turn.v3","next":{"type":"silent"}}';
    expect(proseAroundEnvelope(`he said "x\n${acme}`, "acme.turn.v3")).toBe('he said "x');
  });
});

describe("proseAroundEnvelope: escaped envelopes and their debris (issue 17)", () => {
  const ESCAPED = '{"\\u0073chema":"\\u006fpenab.turn.v9","\\u006dessages":[{"id":"b1","text":"CANARY"}]}';
  const MB = 2 ** 20;

  it("strips an escaped envelope and the ~~~ fence that held it", () => {
    expect(proseAroundEnvelope(`here:\n~~~json\n${ESCAPED}\n~~~\nbye`)).toBe("here:\n\nbye");
  });

  it("drops text that still holds an escaped marker", () => {
    expect(proseAroundEnvelope('"\\u0073chema":"\\u006fpenab.turn.v1"')).toBe("");
  });

  it("takes the rest of an envelope a stray `}` closed early", () => {
    const early = ESCAPED.replace('"\\u006dessages":[', '"\\u006dessages":[}');
    expect(proseAroundEnvelope(`here:\n${early}\nbye`)).toBe("here:\n\nbye");
  });

  it("gives nothing when envelope keys are left after a cut", () => {
    expect(proseAroundEnvelope(`${ESCAPED} then "\\u0074ext": "CANARY"`)).toBe("");
  });

  it("keeps prose that only mentions an envelope key when nothing was cut", () => {
    expect(proseAroundEnvelope('use "text": "hi" in your JSON')).toBe('use "text": "hi" in your JSON');
  });

  it("is linear on 4 MB of debris after an envelope", () => {
    expect(proseAroundEnvelope(`ok ${ESCAPED}${",1".repeat(2 * MB)}`)).toBe("ok");
    expect(proseAroundEnvelope(`ok ${ESCAPED}${"}{".repeat(2 * MB)}`)).toBe("ok");
  });
});
