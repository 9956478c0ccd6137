import { describe, expect, it } from "vitest";
import { findEnvelopeSpan, scanEnvelopeSpan, type EnvelopeSpan } from "../../../../operators/delivery/envelope/findEnvelopeSpan.js";

const E = '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"hi"}],"next":{"type":"stop"}}';
const F = "```";
const span = (start: number, end: number, complete = true): EnvelopeSpan => ({ start, end, complete });

describe("scanEnvelopeSpan: OpenAB's find_envelope_span, exactly (§4 vectors)", () => {
  it("E is 87 chars", () => {
    expect(E.length).toBe(87);
  });

  it.each<[string, string, EnvelopeSpan | undefined]>([
    ["prose", "hey what's up", undefined],
    ["unrelated JSON", 'try this config:\n{"retries": 3}', undefined],
    ["only the envelope", E, span(0, 87)],
    ["leading prose", `sure, here you go:\n${E}`, span(19, 106)],
    ["prose around", `here you go:\n${E}\nhope that helps`, span(13, 100)],
    ["json fence", `${F}json\n${E}\n${F}`, span(8, 95)],
    ["a JSON object after the envelope hides it", `${E}\nalso: {"retries": 3}`, undefined],
    ["an odd quote before the envelope hides it", `he said "hi\n${E}`, undefined],
    ["balanced quotes before the envelope", `it's "quoted" fine\n${E}`, span(19, 106)],
    ["truncated", 'sorry, one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te', span(15, 68, false)],
    ["unrelated balanced and unclosed objects", '{"a":1} then {"b":2', undefined],
    ["a stray closing brace after", `${E}\n}`, span(0, 87)],
  ])("%s", (_name, text, expected) => {
    expect(scanEnvelopeSpan(text)).toStrictEqual(expected);
  });

  it("a truncated tail wins over an earlier balanced envelope", () => {
    const text = `${E} and {"schema":"openab.turn.v1","messages":[`;
    expect(scanEnvelopeSpan(text)).toStrictEqual(span(92, text.length, false));
  });

  it("only the last top-level balanced object counts", () => {
    expect(scanEnvelopeSpan(`{"retries": 3} then ${E}`)).toStrictEqual(span(20, 107));
  });

  it("is key-based: a cut before the schema value, or a messages key alone, is enough", () => {
    expect(scanEnvelopeSpan('one sec {"schema":')).toStrictEqual(span(8, 18, false));
    expect(scanEnvelopeSpan('{"messages":[]}')).toStrictEqual(span(0, 15));
    expect(scanEnvelopeSpan('{"schema":"draft-07"}')).toStrictEqual(span(0, 21));
    expect(scanEnvelopeSpan('{"schema_version": 2}')).toBeUndefined();
  });

  it("honours escapes inside strings and ignores a closing brace at depth 0", () => {
    const text = `} ${E.replace('"hi"', '"say \\"}\\" and \\\\"')}`;
    expect(scanEnvelopeSpan(text)).toStrictEqual(span(2, text.length));
  });

  it("returns UTF-16 offsets that slice multibyte text intact", () => {
    const prose = "今天天氣 🌤 好:\n";
    const text = `${prose}${E.replace('"hi"', '"🎉 好"')}`;
    const found = scanEnvelopeSpan(text);
    expect(found?.start).toBe(prose.length);
    expect(text.slice(found?.start, found?.end)).toBe(E.replace('"hi"', '"🎉 好"'));
  });
});

describe("findEnvelopeSpan: turnstream's hardened finder (§12 (h))", () => {
  it("agrees with upstream on every §4 vector upstream does not leak", () => {
    const texts = [
      "hey what's up",
      'try this config:\n{"retries": 3}',
      E,
      `sure, here you go:\n${E}`,
      `here you go:\n${E}\nhope that helps`,
      `${F}json\n${E}\n${F}`,
      `it's "quoted" fine\n${E}`,
      'sorry, one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te',
      '{"a":1} then {"b":2',
      `${E}\n}`,
    ];
    for (const text of texts) expect(findEnvelopeSpan(text)).toStrictEqual(scanEnvelopeSpan(text));
  });

  it("finds the envelope an odd quote in the prose hid", () => {
    expect(findEnvelopeSpan(`he said "hi\n${E}`)).toStrictEqual(span(12, 99));
  });

  it("finds the envelope a later JSON object hid", () => {
    expect(findEnvelopeSpan(`${E}\nalso: {"retries": 3}`)).toStrictEqual(span(0, 87));
  });

  it("prefers the envelope over a later object with a bare \"schema\" key (upstream strips the wrong one)", () => {
    const text = `${E}\n{"schema":"draft-07"}`;
    expect(scanEnvelopeSpan(text)).toStrictEqual(span(88, text.length));
    expect(findEnvelopeSpan(text)).toStrictEqual(span(0, 87));
  });

  it("finds a truncated envelope an odd quote hid", () => {
    const text = `he said "hi\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te`;
    expect(scanEnvelopeSpan(text)).toBeUndefined();
    expect(findEnvelopeSpan(text)).toStrictEqual(span(12, text.length, false));
  });

  it("takes the outermost object, not one nested in it", () => {
    const nested = E.replace('"hi"', '"see {\\"messages\\": 1}"');
    expect(findEnvelopeSpan(`he said "x\n${nested}`)).toStrictEqual(span(11, 11 + nested.length));
  });

  it("does not take a closed object without markers for an envelope, even with a \"schema\" key", () => {
    const text = 'use {"schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"} to validate';
    expect(scanEnvelopeSpan(text)).toBeDefined();
    expect(findEnvelopeSpan(text)).toBeUndefined();
  });

  it("keeps upstream's key test for unclosed objects", () => {
    expect(findEnvelopeSpan('one sec {"schema":')).toStrictEqual(span(8, 18, false));
  });

  it("counts the configured schema as a marker", () => {
    const text = 'he said "x\n{"schema":"acme.turn.v3","next":{"type":"silent"}}';
    expect(findEnvelopeSpan(text)).toBeUndefined();
    expect(findEnvelopeSpan(text, "acme.turn.v3")).toStrictEqual(span(11, text.length));
    expect(findEnvelopeSpan('{"schema":"acme.turn.v3","next":{"type":"silent"}}', "acme.turn.v3")).toStrictEqual(span(0, 50));
  });

  it("leaves prose that only mentions the markers alone", () => {
    expect(findEnvelopeSpan('the openab.turn.v1 envelope has a "messages" array')).toBeUndefined();
  });

  it("bounds its work on adversarial text (quotes and braces that defeat the shared scan)", () => {
    // Quadratic rescanning would take minutes here and hit the test timeout.
    const text = `x"${'{"\\"{'.repeat(80_000)}${E} {"retries":1}`;
    const found = findEnvelopeSpan(text);
    expect(found).toBeDefined();
  });
});

// Every `{` before the last marker is a candidate; searching each candidate's text for a marker
// made nested objects quadratic (1 MB of nesting: seconds; 4 MB: minutes, far past the test
// timeout). Linear, each of these 4 MB texts takes a fraction of a second.
describe("findEnvelopeSpan: linear in the length of the text", () => {
  const MB = 2 ** 20;
  const M = '"messages"';
  it("deep nesting before a marker is not an envelope", () => {
    expect(findEnvelopeSpan(`${"{".repeat(2 * MB)}${"}".repeat(2 * MB)}${M}`)).toBeUndefined();
  });

  it("a million empty objects before a marker are not an envelope", () => {
    expect(findEnvelopeSpan(`${"{}".repeat(2 * MB)}${M}`)).toBeUndefined();
  });

  it("braces inside a string: the rescan's budget ends it", () => {
    const text = `{"a":"${"{".repeat(4 * MB)}"}${M}`;
    expect(findEnvelopeSpan(text)).toEqual(span(6, text.length, false));
  });

  it("the last of many marked objects wins", () => {
    const text = '{"messages":1} '.repeat((4 * MB) / 15);
    expect(findEnvelopeSpan(text)).toEqual(span(text.length - 15, text.length - 1));
  });
});

// Issue 17: keys and markers are judged decoded. The decoding is one pass per text, never one per
// candidate object; these 4 MB texts would take minutes otherwise.
describe("findEnvelopeSpan: by what the JSON decodes to, in linear time", () => {
  const MB = 2 ** 20;
  const ESCAPED = '{"\\u0073chema":"\\u006fpenab.turn.v1","\\u006dessages":[{"id":"b1","text":"the secret plan"}],"next":{"type":"stop"}}';

  it("finds the issue's example, where upstream's scan sees nothing", () => {
    const text = `Sure!\n${ESCAPED}`;
    expect(scanEnvelopeSpan(text)).toBeUndefined();
    expect(findEnvelopeSpan(text)).toStrictEqual(span(6, text.length));
  });

  it("finds an escaped envelope an odd quote hid, and an escaped truncated one", () => {
    expect(findEnvelopeSpan(`he said "hi\n${ESCAPED}`)).toStrictEqual(span(12, 12 + ESCAPED.length));
    expect(findEnvelopeSpan(`one sec ${ESCAPED.slice(0, 20)}`)).toStrictEqual(span(8, 28, false));
  });

  it("takes an object cut off before its first key for an envelope", () => {
    expect(findEnvelopeSpan("Sure! {")).toStrictEqual(span(6, 7, false));
    expect(findEnvelopeSpan('Sure! {"\\u0073c')).toStrictEqual(span(6, 15, false));
    expect(findEnvelopeSpan('try {"b":2')).toBeUndefined();
  });

  it("a 4 MB envelope with every character escaped", () => {
    const text = `ok ${ESCAPED.replace("the secret plan", "\\u0061".repeat((4 * MB) / 6))}`;
    expect(findEnvelopeSpan(text)).toStrictEqual(span(3, text.length));
  });

  it("4 MB of escaped quotes and braces in strings before a marker", () => {
    const text = `"${'\\"{\\u0022{'.repeat((4 * MB) / 10)}" {"\\u006dessages":1}`;
    expect(findEnvelopeSpan(text)?.complete).toBe(true);
  });

  it("a million cut-off objects that open like an envelope", () => {
    expect(findEnvelopeSpan('{"next":'.repeat((4 * MB) / 8))).toStrictEqual(span(0, 4 * MB, false));
    expect(findEnvelopeSpan(`${'{"s{'.repeat(MB)}!`)).toBeUndefined();
  });
});
