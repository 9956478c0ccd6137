import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  isPlainText,
  scanUntrustedText,
  truncationMarker,
  UNTRUSTED_TEXT_MAX_CHARS,
  untrustedText,
} from "../../../operators/ingress/untrustedText.js";

/** Every character `untrustedText` must never let through, one line or not (`\n`/`\t` are checked per mode). */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;
const forbiddenIn = (text: string, multiline: boolean) => FORBIDDEN.test(text) || (!multiline && /[\n\t\u2028\u2029]/.test(text));

describe("untrustedText", () => {
  it("leaves short printable text, emoji and non-Latin scripts as they are", () => {
    const text = "好 🎉 café — ü ñ ß ∑ «quote» 👩‍💻 عربى \u200f";
    expect(untrustedText(text)).toBe(text);
    expect(untrustedText("")).toBe("");
  });

  it("removes ANSI colour, cursor and erase sequences whole", () => {
    expect(untrustedText("\u001b[31merror\u001b[0m: \u001b[1;33mdisk full\u001b[39;49m")).toBe("error: disk full");
    expect(untrustedText("\u001b[2K\u001b[1Gprogress 50%")).toBe("progress 50%");
    expect(untrustedText("a\u001b[?25lb\u001b[>4;2mc")).toBe("abc");
    expect(untrustedText("8-bit \u009b31mCSI\u009b0m")).toBe("8-bit CSI");
  });

  it("removes OSC, DCS and APC strings with their payload (titles, hyperlinks, clipboard writes)", () => {
    expect(untrustedText("a\u001b]0;evil title\u0007b")).toBe("ab");
    expect(untrustedText("\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\")).toBe("click");
    expect(untrustedText("x\u001b]52;c;cGFzc3dk\u0007y")).toBe("xy");
    expect(untrustedText("x\u001bPq#0;1;2\u001b\\y\u001b_apc\u009cz")).toBe("xyz");
  });

  it("removes two- and three-character escapes and a lone ESC", () => {
    expect(untrustedText("a\u001bcb\u001b7c\u001b(Bd")).toBe("abcd");
    expect(untrustedText("end\u001b")).toBe("end");
  });

  it("removes NUL, the other C0 controls, DEL and C1; a log field becomes one line", () => {
    expect(untrustedText("a\u0000b\u0007c\u0008d\te\rf\ng\u000bh")).toBe("abcd ef gh");
    expect(untrustedText("a\u007fb\u0085c\u0080e\u009ff\u009dg")).toBe("abcefg");
    expect(untrustedText("one\u2028two\u2029three")).toBe("one two three");
  });

  it("cannot forge a second log line", () => {
    expect(untrustedText('ok\r\n{"level":50,"msg":"agent exited"}')).toBe('ok {"level":50,"msg":"agent exited"}');
  });

  it("keeps newlines and tabs for a user, never a carriage return", () => {
    expect(untrustedText("line 1\r\nline 2\tend\u2028x", { multiline: true })).toBe("line 1\nline 2\tend\nx");
  });

  it("removes bidi embeddings, overrides and isolates (Trojan Source), keeps the marks", () => {
    expect(untrustedText("a\u202eb\u202ac\u2066d\u2069e\u200ef")).toBe("abcde\u200ef");
  });

  it("removes lone surrogates and keeps pairs", () => {
    expect(untrustedText("a\ud83db\ude00c😀")).toBe("abc😀");
  });

  it("cuts a long text to at most maxChars, marker included, and says how much was cut", () => {
    const out = untrustedText("x".repeat(1_000_000));
    expect(out.length).toBeLessThanOrEqual(UNTRUSTED_TEXT_MAX_CHARS);
    expect(out).toBe(`${"x".repeat(481)}…(+999,519 chars)`);
    expect(untrustedText("y".repeat(500))).toBe("y".repeat(500));
    expect(untrustedText("y".repeat(501))).toBe(`${"y".repeat(487)}…(+14 chars)`);
    expect(untrustedText("abcdefghij".repeat(10), { maxChars: 40 })).toBe("abcdefghijabcdefghijabcdefg…(+73 chars)");
  });

  it("counts the bound after cleaning: escapes do not use it up", () => {
    const colored = "\u001b[31mred\u001b[0m ".repeat(100); // 1,300 chars, 400 of them visible
    expect(untrustedText(colored)).toBe("red ".repeat(100));
  });

  it("never cuts a surrogate pair in half", () => {
    // 486 + 200 code units: the cut falls between the halves of the first emoji, so it goes whole.
    expect(untrustedText(`${"a".repeat(486)}${"😀".repeat(100)}`)).toBe(`${"a".repeat(486)}…(+200 chars)`);
    expect(untrustedText(`${"a".repeat(485)}${"😀".repeat(100)}`)).toBe(`${"a".repeat(485)}😀…(+198 chars)`);
  });

  it("refuses a bound too small for the marker", () => {
    expect(() => untrustedText("x", { maxChars: 10 })).toThrow(RangeError);
  });

  it("formats the marker with thousands separators", () => {
    expect(truncationMarker(5)).toBe("…(+5 chars)");
    expect(truncationMarker(999_500)).toBe("…(+999,500 chars)");
    expect(truncationMarker(1_234_567_890)).toBe("…(+1,234,567,890 chars)");
  });

  it("examines a bounded prefix of a 1 MB input, whatever it holds", () => {
    const inputs = {
      plain: "x".repeat(1 << 20),
      nuls: "\u0000".repeat(1 << 20),
      escapes: "\u001b[31m\u0000".repeat(1 << 18),
      unterminatedOsc: `\u001b]0;${"t".repeat(1 << 20)}`,
      surrogates: "\ud800".repeat(1 << 20),
    };
    for (const [name, input] of Object.entries(inputs)) {
      const scan = scanUntrustedText(input);
      expect(scan.scanned, name).toBeLessThanOrEqual(16 * UNTRUSTED_TEXT_MAX_CHARS);
      expect(scan.text.length, name).toBeLessThanOrEqual(UNTRUSTED_TEXT_MAX_CHARS);
      expect(scan.text, name).toMatch(/…\(\+[\d,]+ chars\)$/);
    }
  });
});

describe("isPlainText", () => {
  it("accepts ids as gateways send them, refuses controls, escapes, bidi and overlong ones", () => {
    for (const id of ["evt-1", "1700000000.123456", "C0123ABC", "oc_1f2e:thread/9", "好友", ""]) expect(isPlainText(id), id).toBe(true);
    for (const id of ["a\u0000", "a\nb", "a\tb", "\u001b[31mx", "a\u202eb", "\ud800", "x".repeat(501)]) expect(isPlainText(id), JSON.stringify(id).slice(0, 20)).toBe(false);
    expect(isPlainText("x".repeat(64), 64)).toBe(true);
    expect(isPlainText("x".repeat(65), 64)).toBe(false);
  });
});

/** Strings rich in what the cleaner must handle: escapes, controls, bidi, surrogate halves, line breaks. */
const hostile = fc
  .array(
    fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 8 }),
      fc.constantFrom("\u001b", "\u001b[", "\u001b]", "\u001b\\", "[31m", "0;t", "\u0007", "\u009b", "\u009c", "\u009d", "\u0000", "\r", "\n", "\t"),
      fc.constantFrom("\u202e", "\u2066", "\u2028", "\ud83d", "\ude00", "😀", "\u007f", "\u0085", "…(+3 chars)"),
      fc.string({ unit: "binary", maxLength: 4 }),
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(""));

const settings = fc.record({ maxChars: fc.integer({ min: 32, max: 200 }), multiline: fc.boolean() });

describe("untrustedText properties", () => {
  test.prop([hostile, settings], { numRuns: 3_000 })("the result is within the bound and holds nothing forbidden", (text, options) => {
    const out = untrustedText(text, options);
    expect(out.length).toBeLessThanOrEqual(options.maxChars);
    expect(forbiddenIn(out, options.multiline)).toBe(false);
  });

  test.prop([hostile, settings], { numRuns: 3_000 })("cleaning twice changes nothing more", (text, options) => {
    const once = untrustedText(text, options);
    expect(untrustedText(once, options)).toBe(once);
  });

  test.prop([hostile, settings], { numRuns: 2_000 })("a result that was not cut is the whole text cleaned; a cut one is a prefix of it plus the marker", (text, options) => {
    const whole = untrustedText(text, { ...options, maxChars: 100_000 });
    const out = untrustedText(text, options);
    if (whole.length <= options.maxChars) expect(out).toBe(whole);
    else {
      const marker = /…\(\+[\d,]+ chars\)$/.exec(out);
      expect(marker).not.toBeNull();
      expect(whole.startsWith(out.slice(0, out.length - (marker?.[0].length ?? 0)))).toBe(true);
    }
  });

  test.prop([hostile, fc.integer({ min: 32, max: 200 })], { numRuns: 2_000 })("examines at most 16 input units per output unit allowed", (text, maxChars) => {
    const long = text.repeat(50);
    expect(scanUntrustedText(long, { maxChars }).scanned).toBeLessThanOrEqual(16 * maxChars);
  });

  test.prop([fc.string({ unit: "grapheme", maxLength: 40 })])("printable text without line breaks passes unchanged", (text) => {
    fc.pre(!forbiddenIn(text, false) && !text.includes("\r"));
    expect(untrustedText(text)).toBe(text);
  });
});
