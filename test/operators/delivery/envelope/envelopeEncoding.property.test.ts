import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { rustTrim } from "../../../../operators/delivery/text/rustWhitespace.js";
import { planStructuredBubbles, type OnParseError, type StructuredOptions } from "../../../../operators/delivery/envelope/structuredBubbles.js";

// Issue 17, hole 3: the envelope is judged by what its JSON decodes to, not by how it is spelled.
// Every envelope here is written by `writeJson` below, which may spell any key or string character
// as a `\u` escape (hex in either case), `/` as `\/`, and put any JSON whitespace between tokens;
// then it may be damaged, fenced (``` or ~~~, with or without an info string) and wrapped in prose.

const RUNS = 10_000;
const ERROR_LINE = "⚠️ something went wrong composing that reply";
const POLICIES: OnParseError[] = ["fallback_text", "error_message", "silent"];
const MAX_BUBBLES = 4;
const optionsFor = (onParseError: OnParseError): StructuredOptions => ({
  schema: "openab.turn.v1",
  maxBubbles: MAX_BUBBLES,
  maxBubbleChars: 1200,
  onParseError,
  parseErrorText: ERROR_LINE,
});

// ---- The oracle: JSON escapes decoded by the simplest rule (not the code under test) ----

const SHORT: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const decoded = (text: string) =>
  text.replace(/\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (_, hex: string | undefined, short: string | undefined) =>
    hex === undefined ? (SHORT[short ?? ""] ?? "") : String.fromCharCode(parseInt(hex, 16)),
  );
/** Envelope JSON in delivered text, however spelled: the schema family or the `"messages"` key. */
const holdsMarker = (text: string) => [text, decoded(text)].some((t) => t.includes("openab.turn.") || t.includes('"messages"'));
const braces = (text: string) => text.split("{").length - 1;

// ---- Writing JSON in any legal spelling ----

/** A small deterministic generator, so one fast-check seed reproduces every spelling choice. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Spelling {
  readonly seed: number;
  /** Chance that a key or string character is written as `\uXXXX`. */
  readonly escapeRate: number;
  readonly hex: "lower" | "upper" | "mixed";
  /** Write `/` as `\/` (when not `\u`-escaped). */
  readonly slash: boolean;
  /** Chance of whitespace before and after each structural token. */
  readonly spaceRate: number;
}

const WHITESPACE = [" ", "  ", "\t", "\n", "\r\n", "\r", "\n\t ", " \r\n\t"];
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function writeJson(value: unknown, spelling: Spelling): string {
  const next = random(spelling.seed);
  const hexDigit = (digit: string) => {
    const upper = spelling.hex === "upper" || (spelling.hex === "mixed" && next() < 0.5);
    return upper ? digit.toUpperCase() : digit;
  };
  const unicodeEscape = (unit: number) => `\\u${[...unit.toString(16).padStart(4, "0")].map(hexDigit).join("")}`;
  const space = () => (next() < spelling.spaceRate ? (WHITESPACE[Math.floor(next() * WHITESPACE.length)] ?? " ") : "");
  const token = (t: string) => `${space()}${t}${space()}`;
  const string = (s: string) => {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const unit = s.charCodeAt(i);
      const char = s.charAt(i);
      if (next() < spelling.escapeRate) out += unicodeEscape(unit);
      else if (SHORT_ESCAPES[char] !== undefined) out += SHORT_ESCAPES[char];
      else if (unit < 0x20) out += unicodeEscape(unit);
      else if (char === "/" && spelling.slash) out += "\\/";
      else out += char;
    }
    return `${out}"`;
  };
  const write = (v: unknown): string => {
    if (typeof v === "string") return string(v);
    if (Array.isArray(v)) return `${token("[")}${v.map(write).join(token(","))}${token("]")}`;
    if (typeof v === "object" && v !== null) {
      const fields = Object.entries(v).map(([key, field]) => `${space()}${string(key)}${token(":")}${write(field)}`);
      return `${token("{")}${fields.join(token(","))}${token("}")}`;
    }
    return JSON.stringify(v);
  };
  return write(value);
}

const spelling: fc.Arbitrary<Spelling> = fc.record({
  seed: fc.integer(),
  escapeRate: fc.constantFrom(0, 0.05, 0.3, 0.7, 1),
  hex: fc.constantFrom("lower", "upper", "mixed"),
  slash: fc.boolean(),
  spaceRate: fc.constantFrom(0, 0.2, 0.6, 1),
});

// ---- The envelope: valid, invalid by the rules, or damaged ----

const tricky = fc.constantFrom("a", "z", " ", "\n", "\t", "{", "}", '"', "\\", "/", ":", ",", "[", "]", "好", "🎉", "\u0085", "schema", "text", "plan");
const bubbleText = fc.string({ unit: tricky, maxLength: 16 }).filter((text) => !holdsMarker(text));
const bubbleId = fc.constantFrom("b1", "b2", "b3", "bubble_1", " ", "");
const next = fc.oneof(
  { arbitrary: fc.constantFrom({ type: "stop" }, { type: "wait" }), weight: 4 },
  { arbitrary: fc.constant({ type: "silent" }), weight: 1 },
  { arbitrary: fc.constant({ type: "tool", name: "gmail.search", arguments: { query: "a/b", n: [1, true, null] } }), weight: 1 },
  { arbitrary: fc.constant({ type: "escalate" }), weight: 1 },
);

interface Envelope {
  readonly messages: readonly { readonly id: string; readonly text: string }[];
  readonly next?: { readonly type: string };
  /** The order the top-level keys are written in. */
  readonly order: readonly ("schema" | "messages" | "next")[];
  readonly change: "none" | "extra field" | "other schema" | "renamed key";
}

const envelope: fc.Arbitrary<Envelope> = fc
  .record({
    messages: fc.array(fc.record({ id: fc.option(bubbleId, { freq: 4, nil: undefined }), text: bubbleText }), { minLength: 0, maxLength: 5 }),
    next: fc.option(next, { freq: 4, nil: undefined }),
    order: fc.shuffledSubarray(["schema", "messages", "next"] as const, { minLength: 3, maxLength: 3 }),
    change: fc.constantFrom("none", "none", "none", "extra field", "other schema", "renamed key"),
  })
  .map(({ messages, ...rest }) => ({ ...rest, messages: messages.map(({ id, text }, i) => ({ id: id ?? `b${i + 1}`, text })) }));

function envelopeValue({ messages, next: nextValue, order, change }: Envelope): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    schema: change === "other schema" ? "openab.turn.v2" : "openab.turn.v1",
    messages: messages.map(({ id, text }) => (change === "renamed key" ? { id, txt: text } : { id, text })),
    next: nextValue,
  };
  const value: Record<string, unknown> = {};
  for (const key of order) if (fields[key] !== undefined) value[key] = fields[key];
  // Not first: an object cut off before any envelope key is prose to the finder (docs/delivery.md).
  if (change === "extra field") value.confidence = 0.9;
  return value;
}

/** What a valid envelope delivers (`[]` for silent), or `undefined` when the rules reject it. */
function expectedBubbles({ messages, next: nextValue, change }: Envelope): string[] | undefined {
  if (change !== "none" || nextValue?.type === "escalate" || messages.length > MAX_BUBBLES) return undefined;
  const ids = messages.map(({ id }) => rustTrim(id));
  if (ids.some((id, i) => id === "" || ids.indexOf(id) !== i)) return undefined;
  if (messages.some(({ text }) => rustTrim(text) === "")) return undefined;
  if (nextValue?.type === "silent") return [];
  return messages.length === 0 ? undefined : messages.map(({ text }) => rustTrim(text));
}

type Damage = (json: string) => string;
const at = (json: string, where: number) => Math.floor(where * json.length);
const place = fc.double({ min: 0, max: 1, noNaN: true });
// Where the agent's output was cut off: the end of the turn, so nothing follows it.
const cut = fc.option(place, { freq: 5, nil: undefined });
const damage = fc.oneof(
  { arbitrary: fc.constant<Damage | undefined>(undefined), weight: 3 },
  { arbitrary: place.map<Damage>((where) => (json) => json.slice(0, at(json, where)) + json.slice(at(json, where) + 1)), weight: 1 },
  {
    arbitrary: fc
      .tuple(place, fc.constantFrom('"', "{", "}", ",", "\\", "x", "]", "\n"), fc.boolean())
      .map<Damage>(([where, char, replace]) => (json) => json.slice(0, at(json, where)) + char + json.slice(at(json, where) + (replace ? 1 : 0))),
    weight: 1,
  },
);

// ---- Around it: a fence, prose ----

const fence = fc.constantFrom(
  undefined,
  { open: "```json", close: "```" },
  { open: "```", close: "```" },
  { open: "~~~", close: "~~~" },
  { open: "~~~json", close: "~~~" },
  { open: "```json", close: "" },
);
// No `{` in the plain prose: a `{` in the output then came from the envelope.
const proseUnit = fc.constantFrom("Sure!", "here you go", "one sec", " ", "\n", "\r\n", "\t", ":", '"', "'", "it's", "好的", "🎉", "}", "]", "-");
const plainProse = fc.string({ unit: proseUnit, maxLength: 6 });
const braceProse = fc.string({ unit: fc.constantFrom("see", " ", "{", "}", '{"a":1}', '{"b":', '"', "\n"), maxLength: 5 });
const prose = fc.oneof({ arbitrary: plainProse, weight: 5 }, { arbitrary: braceProse, weight: 1 });

const turn = fc
  .record({ envelope, spelling, damage, cut, fence, before: prose, after: prose })
  // One damage at a time: an edit, or the cut.
  .map(({ damage: damageIt, cut: cutAt, ...rest }) => ({ ...rest, damage: damageIt, cut: damageIt === undefined ? cutAt : undefined }))
  .map(({ envelope: env, spelling: spelled, damage: damageIt, cut: cutAt, fence: fenced, before, after: afterProse }) => {
    const json = writeJson(envelopeValue(env), spelled);
    const damaged = damageIt === undefined ? json : damageIt(json);
    // Cut anywhere, before the first key included (at least the `{` is left).
    const written = cutAt === undefined ? damaged : damaged.slice(0, Math.max(1, at(damaged, cutAt)));
    const after = cutAt === undefined ? afterProse : "";
    const wrapped = fenced === undefined ? written : `${fenced.open}\n${written}${cutAt === undefined ? `\n${fenced.close}` : ""}`;
    const body = `${before}${before === "" ? "" : "\n"}${wrapped}${after === "" ? "" : "\n"}${after}`;
    // The bubbles a valid, undamaged envelope must deliver. A `{` in the prose before it may open an
    // object that swallows the envelope (upstream's scan), so only brace-free prose promises them.
    const intact = damageIt === undefined && cutAt === undefined;
    const valid = intact && !`${before}${after}`.includes("{") ? expectedBubbles(env) : undefined;
    return { body, valid, proseBraces: braces(before) + braces(after) };
  });

// ---- The property, once per policy ----

describe("an envelope in any JSON spelling never reaches the user (issue 17)", () => {
  for (const policy of POLICIES) {
    test.prop([turn], { numRuns: RUNS })(`on_parse_error = ${policy}: a valid envelope's bubbles, else the policy's answer without the envelope's JSON`, ({ body, valid, proseBraces }) => {
      const plan = planStructuredBubbles(body, optionsFor(policy));
      const sent = plan.kind === "bubbles" ? plan.bubbles : [];
      if (valid !== undefined) {
        expect(plan.parseFailure).toBeUndefined();
        expect(sent).toStrictEqual(valid);
        return;
      }
      if (plan.parseFailure === undefined) return; // damage that left a valid envelope: its bubbles
      for (const bubble of sent) {
        expect(holdsMarker(bubble)).toBe(false);
        // No `{` beyond the prose's own: none came from the envelope.
        expect(braces(bubble)).toBeLessThanOrEqual(proseBraces);
      }
      if (policy === "error_message") expect(sent).toStrictEqual([ERROR_LINE]);
      if (policy === "silent") expect(plan.kind).toBe("nothing");
      if (policy === "fallback_text") expect(sent).toHaveLength(1);
    });
  }
});
