import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { of, type Observable } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { charCount } from "../../../operators/delivery/text/graphemes.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { prefixRoom, withResponsePrefix } from "../../../operators/delivery/text/responsePrefix.js";
import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import { emptyTranscript, reduceTranscript } from "../../../operators/delivery/turnTranscript.js";
import { deliverBlocks } from "../../../src/turn/delivery/deliverBlocks.js";
import { deliverText } from "../../../src/turn/delivery/deliverText.js";
import { replyStyleOf, styledContext } from "../../../src/turn/delivery/replyStyle.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { resolveConfig } from "../../../src/config/index.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";

// A response prefix with every delivery path that splits (text: splitMessage at the platform limit;
// blocks: the chunker and coalescer at [delivery.blocks] max_chars), composed as the broker composes
// them: the styled context in front of the real path, in virtual time. What a user receives must
// be valid Markdown whatever the reply starts with, and no longer than the limit it was cut for.

const F = "```";
const event = gatewayEvent({ message_id: "user-7" });
const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";

/** Every message the path sent, the styled context in front of a platform limit of `limit`. */
function sent(prefix: string, limit: number, deliver: (context: TurnContext) => Observable<never>): string[] {
  const texts: string[] = [];
  const scheduler = testScheduler();
  const send = (message: OutboundMessage): Observable<SendReceipt> => {
    texts.push(message.content.text);
    return of({ messageId: `m${texts.length}` });
  };
  const context: TurnContext = { send, sendStatus: send, scheduler, logger: captureLogs().logger, messageLimit: () => limit };
  scheduler.run(() => {
    deliver(styledContext(context, event, { replyToMode: undefined, prefix })).subscribe();
  });
  return texts;
}

const textEvent = (text: string): AgentEvent => ({ type: "text", text, messageId: "m1" });
const endEvent: AgentEvent = { type: "end", stopReason: "end_turn" };

function textTurn(reply: string, prefix: string, limit: number): string[] {
  const config = resolveConfig({ delivery: { response_prefix: prefix } });
  const transcript = reduceTranscript(reduceTranscript(emptyTranscript(), textEvent(reply)), endEvent);
  return sent(prefix, limit, (context) => deliverText(transcript, event, context, config));
}

interface Blocks {
  readonly min: number;
  readonly max: number;
  readonly preference: "paragraph" | "newline" | "sentence";
  readonly coalesce: number | undefined;
}

function blocksTurn(reply: string, prefix: string, blocks: Blocks, deltas = 37): string[] {
  const config = resolveConfig({
    delivery: {
      response_prefix: prefix,
      blocks: { enabled: true, min_chars: blocks.min, max_chars: blocks.max, break_preference: blocks.preference, coalesce: { idle_ms: 0, ...(blocks.coalesce === undefined ? {} : { max_chars: blocks.coalesce }) } },
    },
  });
  const events: AgentEvent[] = [];
  for (let at = 0; at < reply.length; at += deltas) events.push(textEvent(reply.slice(at, at + deltas)));
  return sent(prefix, 4096, (context) => deliverBlocks(event, context, config, 0)(of(...events, endEvent)));
}

// CommonMark's fences: up to three spaces, three or more backticks (no backtick in the info string)
// or tildes; closed by at least as many of the same char and nothing but spaces.
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Whether every code fence that opens in `message` closes in it, read as CommonMark reads it. */
function fencesClose(message: string): boolean {
  let open: string | undefined;
  for (const line of message.split("\n")) {
    const match = FENCE_LINE.exec(line.replace(/\r$/, ""));
    if (match === null) continue;
    const [, marker = "", info = ""] = match;
    if (open === undefined) {
      if (!(marker.startsWith("`") && info.includes("`"))) open = marker;
    } else if (marker[0] === open[0] && marker.length >= open.length && info.trim() === "") {
      open = undefined;
    }
  }
  return open === undefined;
}

// Replies: prose, Markdown blocks a prefix on their line would unmake, and fenced code whose lines
// are each unique, so a line cut in two cannot pass for a whole one.
const proseLine = fc.array(fc.constantFrom("word", "longer", " ", ". ", "use `x`", FAMILY, "好"), { minLength: 1, maxLength: 10 }).map((p) => p.join("").trim() || "w");
const blockLine = fc.constantFrom("# Heading", "- item", "* item", "1. step", "> quoted", "| a | b |", "    indented");
let fenceIds = 0;
const fence = fc
  .tuple(fc.constantFrom("ts", "", "python"), fc.array(fc.tuple(fc.nat({ max: 70 }), fc.constantFrom("x", " ", "=", "好")), { minLength: 1, maxLength: 12 }))
  .map(([lang, lines]) => {
    const id = fenceIds++;
    return { opener: `${F}${lang}`, lines: lines.map(([width, filler], k) => `c${id}.${k};${filler.repeat(width)}`) };
  });
const reply = fc
  .array(fc.oneof(proseLine.map((line) => ({ line })), blockLine.map((line) => ({ line })), fence), { minLength: 1, maxLength: 10 })
  .map((parts) => ({
    text: parts.map((part) => ("line" in part ? part.line : [part.opener, ...part.lines, F].join("\n"))).join("\n"),
    fences: parts.flatMap((part) => ("line" in part ? [] : [part])),
  }));
// Starts with a fence, the case that broke: half the replies.
const fencedFirst = fc.tuple(fence, reply).map(([first, rest]) => ({ text: `${[first.opener, ...first.lines, F].join("\n")}\n${rest.text}`, fences: [first, ...rest.fences] }));
const anyReply = fc.oneof(reply, fencedFirst);
const prefix = fc.constantFrom("🤖", "[bot]", "[turnbot]:", `${FAMILY} support`, "›");
const blocks: fc.Arbitrary<Blocks> = fc
  .record({ min: fc.integer({ min: 1, max: 120 }), max: fc.integer({ min: 40, max: 160 }), preference: fc.constantFrom("paragraph", "newline", "sentence"), coalesce: fc.option(fc.integer({ min: 30, max: 200 }), { nil: undefined }) })
  .map((b) => ({ ...b, min: Math.min(b.min, b.max) }));

describe("a prefixed reply is valid Markdown and within its limit, on every path", () => {
  test.prop([anyReply, prefix, fc.integer({ min: 40, max: 400 })], { numRuns: 500 })("text: each message within the platform limit, its fences closed, the prefix first", ({ text }, p, limit) => {
    const messages = textTurn(text, p, limit);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      expect(charCount(message), message).toBeLessThanOrEqual(limit);
      expect(fencesClose(message), message).toBe(true);
      expect(message.startsWith(p)).toBe(true);
    }
  });

  test.prop([anyReply, prefix, blocks], { numRuns: 500 })("blocks: each message within max_chars, its fences closed, the prefix first", ({ text }, p, b) => {
    const messages = blocksTurn(text, p, b);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      // coalesce.max_chars bounds what is joined; a block longer than it goes alone, as it was cut.
      expect(charCount(message), message).toBeLessThanOrEqual(b.max);
      expect(fencesClose(message), message).toBe(true);
      expect(message.startsWith(p)).toBe(true);
    }
  });

  test.prop([anyReply, prefix, blocks], { numRuns: 500 })("blocks: a code line that fits a block beside its fence's opener and closer arrives whole", ({ text, fences }, p, b) => {
    const lines = new Set(blocksTurn(text, p, b).flatMap((message) => message.split("\n")));
    const room = b.max - prefixRoom(p);
    for (const { opener, lines: code } of fences) {
      for (const line of code) if (opener.length + 1 + line.length + 1 + F.length <= room) expect(lines.has(line), line).toBe(true);
    }
  });
});

describe("a prefixed reply: the cases that broke", () => {
  it("a reply that starts with a fence gets the prefix on a line of its own, and the fence opens and closes", () => {
    const [message] = textTurn(`${F}ts\nconst a = 1;\n${F}\nDone.`, "🤖", 4096);
    expect(message).toBe(`🤖\n${F}ts\nconst a = 1;\n${F}\nDone.`);
  });

  it("blocks of a long fence: each after the first reopens it on the line after the prefix", () => {
    const code = Array.from({ length: 30 }, (_, i) => `const value${i} = compute(${i});`).join("\n");
    const messages = blocksTurn(`Intro.\n${F}ts\n${code}\n${F}\nDone.`, "🤖", { min: 20, max: 120, preference: "paragraph", coalesce: undefined });
    expect(messages.length).toBeGreaterThan(3);
    for (const message of messages) {
      expect(charCount(message)).toBeLessThanOrEqual(120);
      expect(fencesClose(message), message).toBe(true);
    }
    expect(messages.filter((message) => message.startsWith(`🤖\n${F}ts\n`)).length).toBeGreaterThanOrEqual(2);
    // Every code line arrived whole.
    const lines = new Set(messages.flatMap((message) => message.split("\n")));
    for (const line of code.split("\n")) expect(lines.has(line), line).toBe(true);
  });

  it("max_chars counts the prefix: a block of 120 with \"🤖\" is 118 chars of text", () => {
    const messages = blocksTurn("x".repeat(1_000), "🤖", { min: 100, max: 120, preference: "paragraph", coalesce: undefined });
    expect(messages.slice(0, -1).map(charCount)).toEqual(Array.from({ length: 8 }, () => 120));
    expect(messages[0]).toBe(`🤖 ${"x".repeat(118)}`);
  });

  it("resolves the configured prefix as the broker does", () => {
    expect(replyStyleOf(resolveConfig({ delivery: { response_prefix: "auto" } }), "turnbot").prefix).toBe("[turnbot]");
  });
});

// Linear: at quadratic cost any of these would not finish within the test timeout.
describe("a prefixed reply: linear in the reply", () => {
  const KB400 = 400 * 1024;
  const longLines = `${F}ts\n${Array.from({ length: KB400 / 100 }, (_, i) => `let v${i} = "${"x".repeat(90)}";`).join("\n")}\n${F}`;
  const blankThenLong = `${F}\n${`${"\n".repeat(200)}${"y".repeat(1_500)}\n`.repeat(KB400 / 1_700)}${F}`;
  it.each([
    ["code lines", longLines],
    ["blank code lines before lines too long for a block", blankThenLong],
    ["one line of 400 KB in a fence", `${F}\n${"z".repeat(KB400)}\n${F}`],
    ["prose", "a sentence of words. ".repeat(KB400 / 21)],
  ])("%s: 400 KB as text and as blocks", (_name, text) => {
    for (const message of textTurn(text, "🤖", 4096)) expect(charCount(message)).toBeLessThanOrEqual(4096);
    const messages = blocksTurn(text, "🤖", { min: 800, max: 1200, preference: "paragraph", coalesce: undefined }, 50);
    for (const message of messages) expect(charCount(message)).toBeLessThanOrEqual(1200);
  });

  it("puts the prefix before a 400 KB text by reading only its start", () => {
    expect(withResponsePrefix("🤖", " ".repeat(KB400))).toHaveLength(KB400 + 3);
    expect(splitMessage(withResponsePrefix("🤖", `${F}\n${"q".repeat(KB400)}`), 4096).length).toBeGreaterThan(100);
  });
});
