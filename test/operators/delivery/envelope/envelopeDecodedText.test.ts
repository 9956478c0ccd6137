import { describe, expect, it } from "vitest";
import { decodeJsonEscapes, ESCAPED_QUOTE } from "../../../../operators/delivery/envelope/envelopeDecodedText.js";
import { envelopeDebrisEnd } from "../../../../operators/delivery/envelope/envelopeDebris.js";
import { EnvelopeMarkerIndex } from "../../../../operators/delivery/envelope/envelopeMarkers.js";
import { opensLikeEnvelope, truncatedOpening } from "../../../../operators/delivery/envelope/envelopeOpening.js";

const view = (text: string) => decodeJsonEscapes(text).view;

describe("decodeJsonEscapes: one pass, JSON's escapes", () => {
  it("is the text itself when there is no backslash", () => {
    const text = '{"schema":"openab.turn.v1"}';
    expect(view(text)).toBe(text);
    expect(decodeJsonEscapes(text).rawOffset(5)).toBe(5);
  });

  it("decodes \\u in either case, the short escapes and \\/", () => {
    expect(view('"\\u0073chema" "\\u006Fpen\\u0041B" \\/ \\\\ \\n\\t\\r\\b\\f')).toBe('"schema" "openAB" / \\ \n\t\r\b\f');
  });

  it("keeps an escaped quote from acting as a quote", () => {
    expect(view('"\\"messages\\"" "\\u0022messages\\u0022"')).toBe(`"${ESCAPED_QUOTE}messages${ESCAPED_QUOTE}" "${ESCAPED_QUOTE}messages${ESCAPED_QUOTE}"`);
  });

  it("leaves escapes JSON does not know as written", () => {
    expect(view("\\x \\u12 \\u12g4 \\")).toBe("\\x \\u12 \\u12g4 \\");
  });

  it("decodes once: an escaped backslash does not start another escape", () => {
    expect(view("\\\\u0073")).toBe("\\u0073");
  });

  it("maps every decoded unit back to where it was written", () => {
    const text = 'a\\u0062c\\nd';
    const decoded = decodeJsonEscapes(text);
    expect(decoded.view).toBe("abc\nd");
    expect([0, 1, 2, 3, 4, 5].map((i) => decoded.rawOffset(i))).toEqual([0, 1, 7, 8, 10, text.length]);
  });
});

describe("EnvelopeMarkerIndex: markers by what they decode to", () => {
  const escaped = '{"\\u0073chema":"\\u006fpenab.turn.v1","\\u006dessages":[]}';
  it("finds escaped keys and values, as raw offsets", () => {
    const index = new EnvelopeMarkerIndex(escaped);
    expect(index.any).toBe(true);
    expect(index.keyedWithin(0, escaped.length)).toBe(true);
    expect(index.markedWithin(0, escaped.length)).toBe(true);
    expect(index.markedWithin(1, escaped.length - 1)).toBe(true);
    expect(index.markedOutside(0, escaped.length)).toBe(false);
  });

  it("does not take quoted words inside a string for keys", () => {
    expect(new EnvelopeMarkerIndex('{"text":"say \\"messages\\" or \\u0022messages\\u0022"}').any).toBe(false);
  });

  it("sees envelope-shaped keys, written or decoded", () => {
    expect(new EnvelopeMarkerIndex('"\\u0074ext" : "x"').fieldKeys).toBe(true);
    expect(new EnvelopeMarkerIndex('the "text" of it').fieldKeys).toBe(false);
  });
});

describe("opensLikeEnvelope / truncatedOpening: an envelope cut off before its markers", () => {
  it.each(["{", "{ \n", '{"', '{"sch', '{"\\u0073ch', '{"\\u00', '{"messages', '{"next":{"ty', '{\r\n\t"schema"'])("%j opens like an envelope", (text) => {
    expect(opensLikeEnvelope(text, 0)).toBe(true);
    expect(truncatedOpening(`one sec ${text}`)).toEqual({ start: 8, end: 8 + text.length, complete: false });
  });

  it.each(['{"b":2', '{"retries": 3', "{ sure", '{"schemas', '{"confidence":0.9,"schema"'])("%j does not", (text) => {
    expect(truncatedOpening(text)).toBeUndefined();
  });

  it("an object that closes is not cut off", () => {
    expect(truncatedOpening('{"next": 1}')).toBeUndefined();
  });
});

describe("envelopeDebrisEnd: the rest of an envelope closed early", () => {
  it("reads JSON tokens after a separator or closer, up to prose", () => {
    const tail = ',"next":{"type":"stop"}} ]\n';
    expect(envelopeDebrisEnd(`${tail}thanks`, 0)).toBe(tail.length - 1);
  });

  it("takes an object right after the span", () => {
    expect(envelopeDebrisEnd('\n{"id":"b1"} ok', 0)).toBe(12);
  });

  it("leaves prose alone", () => {
    expect(envelopeDebrisEnd("\nhope that helps", 0)).toBe(0);
    expect(envelopeDebrisEnd('\n"quoted", he said', 0)).toBe(0);
  });
});
