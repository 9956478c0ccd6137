import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { isSilentText, silentReply, stripTrailingToken, type SilentReplyOptions } from "../../../../operators/delivery/text/silentReply.js";

const chat: SilentReplyOptions = { token: "NO_REPLY", reportToken: "NOTHING_TO_REPORT", proactive: false };
const proactive: SilentReplyOptions = { ...chat, proactive: true };
const silent = { kind: "silent", reason: "silent" } as const;
const nothingToReport = { kind: "silent", reason: "nothing_to_report" } as const;
const deliver = (text: string) => ({ kind: "deliver", text }) as const;

describe("silentReply: NO_REPLY (peers.md §7.1 vectors, no response prefix)", () => {
  it.each(["NO_REPLY", "no_reply", "  NO_REPLY  ", "NO_REPLY.", "**NO_REPLY**", "NO_REPLY NO_REPLY", '"NO_REPLY"', '{"action":"NO_REPLY"}'])(
    "%j is silent",
    (text) => {
      expect(silentReply(text, chat)).toEqual(silent);
    },
  );

  it.each([
    ["Sure. NO_REPLY", "Sure."],
    ["I will stay quiet. NO_REPLY", "I will stay quiet."],
    ["NO_REPLYThe user is saying hi", "The user is saying hi"],
    ["NO_REPLY\nactual text", "actual text"],
    ["NO_REPLY Sure", "NO_REPLY Sure"],
    ["Thanks, will do — NO_REPLY later", "Thanks, will do — NO_REPLY later"],
    ["hello", "hello"],
  ])("%j delivers %j", (text, expected) => {
    expect(silentReply(text, chat)).toEqual(deliver(expected));
  });
});

describe("silentReply: tolerated wrappings", () => {
  it.each(["_NO_REPLY_", "`NO_REPLY`", "“NO_REPLY”", "NO_REPLY!\n", "no_reply No_Reply", '{ "action": "no_reply" }', "\n\n  **NO_REPLY.**  \n"])(
    "%j is silent",
    (text) => {
      expect(silentReply(text, chat)).toEqual(silent);
    },
  );

  it("a JSON object with more than the action is not silent", () => {
    const text = '{"action":"NO_REPLY","text":"hi"}';
    expect(silentReply(text, chat)).toEqual(deliver(text));
  });

  it("strips a repeated or emphasized trailing token", () => {
    expect(silentReply("Sure. NO_REPLY NO_REPLY", chat)).toEqual(deliver("Sure."));
    expect(silentReply("Got it.\n**NO_REPLY**", chat)).toEqual(deliver("Got it."));
  });

  it("does not strip a token glued to a word", () => {
    expect(silentReply("see XNO_REPLY", chat)).toEqual(deliver("see XNO_REPLY"));
  });

  it("what stripping leaves is never a bare token", () => {
    expect(silentReply("NO_REPLY\n**NO_REPLY**", chat)).toEqual(silent);
    expect(silentReply("NO_REPLY\n\n", chat)).toEqual(silent);
  });

  it("an empty reply is not silence: the text path says _(no response)_", () => {
    expect(silentReply("", chat)).toEqual(deliver(""));
    expect(silentReply("   ", chat)).toEqual(deliver("   "));
  });

  it("uses the configured token", () => {
    const custom = { ...chat, token: "[quiet]" };
    expect(silentReply("[QUIET]", custom)).toEqual(silent);
    expect(silentReply("ok [quiet]", custom)).toEqual(deliver("ok"));
    expect(silentReply("NO_REPLY", custom)).toEqual(deliver("NO_REPLY"));
  });
});

describe("silentReply: NOTHING_TO_REPORT on proactive turns (peers.md §7.3 vectors)", () => {
  it.each(["NOTHING_TO_REPORT", " nothing_to_report \n", "Checked 3 feeds.\nNOTHING_TO_REPORT"])("%j is nothing to report", (text) => {
    expect(silentReply(text, proactive)).toEqual(nothingToReport);
  });

  it.each(["", "   ", "Prefix NOTHING_TO_REPORT suffix", "NOTHING_TO_REPORT.", "NOTHING_TO_REPORT\nbut here is a finding"])(
    "%j is delivered as written",
    (text) => {
      expect(silentReply(text, proactive)).toEqual(deliver(text));
    },
  );

  it("a trailing newline does not hide the final line", () => {
    expect(silentReply("Checked 3 feeds.\nNOTHING_TO_REPORT\n", proactive)).toEqual(nothingToReport);
  });

  it("NO_REPLY still wins on a proactive turn", () => {
    expect(silentReply("NO_REPLY", proactive)).toEqual(silent);
  });

  it("is not special on a turn a human started", () => {
    expect(silentReply("NOTHING_TO_REPORT", chat)).toEqual(deliver("NOTHING_TO_REPORT"));
    expect(silentReply("Checked.\nNOTHING_TO_REPORT", chat)).toEqual(deliver("Checked.\nNOTHING_TO_REPORT"));
  });

  it("uses the configured report token", () => {
    expect(silentReply("all_quiet", { ...proactive, reportToken: "ALL_QUIET" })).toEqual(nothingToReport);
  });
});

// The patterns as first written: the definition the linear scans must agree with.
const PUNCT = String.raw`[\p{P}\x60~]`;
const EDGE = String.raw`[\s\p{P}\x60~]`;
const escapeToken = (token: string) => token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function referenceStripTrailing(text: string, token: string): string {
  const t = escapeToken(token);
  const match = new RegExp(`(?:^|\\s+)${PUNCT}*${t}(?:\\s+${t})*${PUNCT}*\\s*$`, "iu").exec(text);
  return match === null ? text : text.slice(0, match.index);
}
function referenceIsSilent(text: string, token: string): boolean {
  const whole = new RegExp(`^\\s*${escapeToken(token)}(?:\\s+${escapeToken(token)})*\\s*$`, "iu");
  if (whole.test(text)) return true;
  const unwrapped = text.replace(new RegExp(`^${EDGE}+|${EDGE}+$`, "gu"), "");
  return whole.test(unwrapped);
}

describe("silentReply: the token scans agree with their patterns", () => {
  const tokens = ["NO_REPLY", "[quiet]", "...", "x", "a.b"];
  const piece = fc.constantFrom(
    "NO_REPLY", "no_reply", "[quiet]", "[QUIET]", "...", ".", "x", "X", "a.b", "a", "b", "word", " ", "  ", "\n", "\t",
    "\u00a0", "\ufeff", "*", "_", "`", "~", '"', "“", "—", "!", "\u{1F600}", "\u{10100}", "\ud800", "é",
  );
  // No `{`: the JSON action form is a separate check.
  const text = fc.array(piece, { maxLength: 14 }).map((pieces) => pieces.join(""));

  test.prop([text, fc.constantFrom(...tokens)], { numRuns: 3000 })("stripTrailingToken", (input, token) => {
    expect(stripTrailingToken(input, token)).toBe(referenceStripTrailing(input, token));
  });

  test.prop([text, fc.constantFrom(...tokens)], { numRuns: 3000 })("isSilentText", (input, token) => {
    expect(isSilentText(input, token)).toBe(referenceIsSilent(input, token));
  });
});

// A long run of whitespace or punctuation made the unanchored patterns retry at every position
// of it: 100 KB of spaces took 37 s. At quadratic cost these 4 MB inputs would not finish within
// the test timeout; linear, they take milliseconds.
describe("silentReply: linear in the length of the reply", () => {
  const MB = 2 ** 20;
  it.each([
    ["spaces", `a${" ".repeat(4 * MB)}b`],
    ["punctuation", `a${".".repeat(4 * MB)}b`],
    ["tokens then a word", `${" NO_REPLY".repeat(MB / 2)} x`],
    ["wrapped tokens", `${"_NO_REPLY_ ".repeat(MB / 2)}x`],
    ["a space run then a token", `a${" ".repeat(4 * MB)}NO_REPLY`],
    ["punctuation then a token", `a ${".".repeat(4 * MB)}NO_REPLY`],
  ])("%s", (_name, text) => {
    const outcome = silentReply(text, proactive);
    expect(outcome.kind).toBe("deliver");
  });
});
