import { describe, expect, it } from "vitest";
import { from, type Observable } from "rxjs";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import { textBlocks, type TextBlockStep, type TextBlocksOptions } from "../../../../operators/delivery/blocks/textBlocks.js";
import { SESSION_RESET_NOTICE } from "../../../../operators/delivery/turnTranscript.js";
import { testScheduler } from "../../../helpers/marbles.js";

const F = "```";
const KEYS = "abcdefghijklmnopqrstuvwxyABCDEFGHIJKLMNOPQRSTUVWXY0123456789";
const text = (t: string, messageId = "m1"): AgentEvent => ({ type: "text", text: t, messageId });
const end: AgentEvent = { type: "end", stopReason: "end_turn" };

interface Seen {
  readonly at: number;
  readonly step: TextBlockStep;
}

/** Runs `events` (a function of the marble helpers) through `textBlocks` in virtual time: each step with its frame. */
function run(options: TextBlocksOptions, events: (cold: <T>(marble: string, values?: Record<string, T>, error?: unknown) => Observable<T>) => Observable<AgentEvent>): Seen[] {
  const scheduler = testScheduler();
  const seen: Seen[] = [];
  scheduler.run(({ cold }) => {
    events(cold).pipe(textBlocks(options)).subscribe((step) => seen.push({ at: scheduler.now(), step }));
  });
  return seen;
}

/** `input` as 50-character deltas of one message, one every 10 ms, then the turn's end: the blocks with their frames. */
function deltasOf(input: string, options: TextBlocksOptions): { at: number; text: string }[] {
  const values: Record<string, AgentEvent> = { Z: end };
  const keys: string[] = [];
  for (let at = 0, n = 0; at < input.length; at += 50, n++) {
    const key = KEYS[n] ?? "";
    values[key] = text(input.slice(at, at + 50));
    keys.push(key);
  }
  const marble = `${keys.join(" 9ms ")} 9ms (Z|)`;
  return run(options, (cold) => cold(marble, values)).flatMap(({ at, step }) => (step.kind === "block" ? [{ at, text: step.text }] : []));
}

const options = (minChars: number, maxChars: number, breakPreference: "paragraph" | "newline" | "sentence"): TextBlocksOptions => ({
  chunker: { minChars, maxChars, breakPreference },
  break: "text_end",
});

describe("textBlocks: peers.md §6.1's vectors as a turn, 50-character deltas 10 ms apart", () => {
  it("800 / 1200 / paragraph: [A….\\n\\nB…. (1004) when the text passes 1200, C…. (501) at the end]", () => {
    const input = `${"A".repeat(500)}.\n\n${"B".repeat(500)}.\n\n${"C".repeat(500)}.`;
    const blocks = deltasOf(input, options(800, 1200, "paragraph"));
    expect(blocks.map((b) => b.text.length)).toEqual([1004, 501]);
    expect(blocks[0]?.text).toBe(`${"A".repeat(500)}.\n\n${"B".repeat(500)}.`);
    expect(blocks[1]?.text).toBe(`${"C".repeat(500)}.`);
    // The first block is cut by the delta that takes the text past 1200 (the 25th, at 240 ms); the
    // last at the turn's end (31 deltas: 310 ms).
    expect(blocks.map((b) => b.at)).toEqual([240, 310]);
  });

  it("20 / 60 / sentence: two blocks of 53 and 35", () => {
    const input = "First sentence here. Second sentence is a bit longer. Third one. Fourth sentence ends it.";
    const blocks = deltasOf(input, options(20, 60, "sentence"));
    expect(blocks).toEqual([
      { at: 10, text: "First sentence here. Second sentence is a bit longer." },
      { at: 20, text: "Third one. Fourth sentence ends it." },
    ]);
  });

  it("100 / 300 / paragraph: a fence split across blocks, each closed and reopened, then Done.", () => {
    // Numbered lines, as OpenClaw's recorded lengths were made (see blockChunker.test.ts).
    const code = Array.from({ length: 40 }, (_, i) => `console.log(${i});\n`).join("");
    const input = `Intro:\n${F}js\n${code}${F}\nDone.`;
    // OpenClaw's block chunker cuts a fence at maxChars, mid-line: its rule, which the vector pins.
    const hard: TextBlocksOptions = { chunker: { minChars: 100, maxChars: 300, breakPreference: "paragraph", fenceSplit: "hard" }, break: "text_end" };
    const blocks = deltasOf(input, hard);
    expect(blocks.map((b) => b.text.length)).toEqual([300, 300, 106, 5]);
    // Cut as the text passes 300 (the 7th and 12th deltas), the rest at the turn's end (14 deltas).
    expect(blocks.map((b) => b.at)).toEqual([60, 110, 140, 140]);
    for (const block of blocks) {
      expect(block.text.length).toBeLessThanOrEqual(300);
      expect(block.text.split("\n").filter((line) => line.startsWith(F)).length % 2, block.text).toBe(0);
    }
    expect(blocks[0]?.text.startsWith("Intro:")).toBe(true);
    expect(blocks.at(-1)?.text).toBe("Done.");
    expect(blocks.slice(1, -1).every((b) => b.text.startsWith(`${F}js\n`) && b.text.endsWith(F))).toBe(true);
  });

  it("100 / 300 / paragraph, turnstream's default: the same cuts, each at the end of the last whole code line", () => {
    const code = Array.from({ length: 40 }, (_, i) => `console.log(${i});\n`).join("");
    const blocks = deltasOf(`Intro:\n${F}js\n${code}${F}\nDone.`, options(100, 300, "paragraph"));
    expect(blocks.map((b) => b.text.length)).toEqual([295, 298, 111, 5]);
    expect(blocks.map((b) => b.at)).toEqual([60, 110, 140, 140]);
    const lines = blocks.flatMap((b) => b.text.split("\n")).filter((line) => line.startsWith("console."));
    expect(lines).toEqual(code.trimEnd().split("\n"));
  });
});

describe("textBlocks: per agent message, directives, reset, silence", () => {
  const small = options(10, 40, "sentence");

  it("flushes at the message's end — a tool call or a new message id — so pieces of one message are never cut apart", () => {
    const seen = run(small, (cold) =>
      cold("a 9ms b 9ms t 9ms c 9ms d 9ms (z|)", {
        a: text("Per"),
        b: text("feito, @jarbas! 👊"),
        t: { type: "tool_start", id: "t1", title: "search" },
        c: text("Found it.", "m2"),
        d: text(" Here it is.", "m3"),
        z: end,
      }),
    );
    expect(seen.map(({ at, step }) => (step.kind === "block" ? [at, step.text] : [at, step.kind, step.streamed]))).toEqual([
      [20, "Perfeito, @jarbas! 👊"],
      [40, "Found it."],
      [50, "Here it is."],
      [50, "end", true],
    ]);
  });

  it("message_end: nothing until the message ends, then all of it, still cut at max_chars", () => {
    const seen = run({ ...small, break: "message_end" }, (cold) =>
      cold("a 9ms b 9ms (z|)", { a: text("One sentence that is long. Another sentence follows it. "), b: text("And a third one to end."), z: end }),
    );
    const blocks = seen.flatMap(({ at, step }) => (step.kind === "block" ? [[at, step.text]] : []));
    expect(blocks.every(([at]) => at === 20)).toBe(true);
    expect(blocks.map(([, t]) => t).join(" ")).toBe("One sentence that is long. Another sentence follows it. And a third one to end.");
    expect(blocks.length).toBeGreaterThan(1);
  });

  it("takes the directive header off and quotes its target on the first block only", () => {
    const seen = run(small, (cold) => cold("a b c (z|)", { a: text("[[reply_"), b: text("to:m42]]\nThe first sentence is here. "), c: text("A second one is here too."), z: end }));
    const blocks = seen.flatMap(({ step }) => (step.kind === "block" ? [step] : []));
    expect(blocks[0]).toEqual({ kind: "block", text: "The first sentence is here.", quote: "m42" });
    expect(blocks.slice(1).every((b) => b.quote === undefined)).toBe(true);
    expect(blocks.map((b) => b.text).join(" ")).not.toContain("[[");
  });

  it("heads the reply with the session reset notice", () => {
    const seen = run(options(10, 4096, "paragraph"), (cold) => cold("r a t (z|)", { r: { type: "session_reset" }, a: text("Fresh start here."), t: { type: "tool_start", id: "t", title: "x" }, z: end }));
    const first = seen.find(({ step }) => step.kind === "block")?.step;
    expect(first?.kind === "block" && first.text.startsWith(SESSION_RESET_NOTICE.trimEnd())).toBe(true);
  });

  it("cuts a trailing silent token from the last block, and sends no last block that is only the token", () => {
    const silent = { token: "NO_REPLY", reportToken: "NOTHING_TO_REPORT", proactive: false };
    const blocksOf = (last: string) =>
      run({ ...small, silent }, (cold) => cold("a t b (z|)", { a: text("Looking into it now."), t: { type: "tool_start", id: "t", title: "x" }, b: text(last, "m2"), z: end })).flatMap(({ step }) =>
        step.kind === "block" ? [step.text] : [],
      );
    expect(blocksOf("All done. NO_REPLY")).toEqual(["Looking into it now.", "All done."]);
    expect(blocksOf("NO_REPLY")).toEqual(["Looking into it now."]);
  });

  it("ends a turn nothing was cut from with streamed: false and its transcript, and sends nothing itself", () => {
    const seen = run(small, (cold) => cold("a (z|)", { a: text("short"), z: end }));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.step).toMatchObject({ kind: "end", streamed: false, transcript: { buffer: "short", stopReason: "end_turn" } });
  });

  it("an agent error ends the turn: the rest flushed, then end with the error in the transcript", () => {
    const seen = run(small, (cold) => cold("a t b #", { a: text("Looking into it now."), t: { type: "tool_start", id: "t", title: "x" }, b: text("Halfway", "m2") }, new Error("Agent process died")));
    expect(seen.map(({ step }) => (step.kind === "block" ? step.text : step.kind))).toEqual(["Looking into it now.", "Halfway", "end"]);
    expect(seen.at(-1)?.step).toMatchObject({ kind: "end", streamed: true, transcript: { agentError: "Agent process died" } });
  });

  it("a cancelled turn sends nothing more after its end", () => {
    const seen = run(small, (cold) => cold("a t b (z|)", { a: text("Looking into it now."), t: { type: "tool_start", id: "t", title: "x" }, b: text("Not sent.", "m2"), z: { type: "end", stopReason: "cancelled" } }));
    expect(seen.map(({ step }) => (step.kind === "block" ? step.text : step.kind))).toEqual(["Looking into it now.", "end"]);
  });

  it("unsubscribing stops reading the turn", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<AgentEvent>("a 9ms b 9ms |", { a: text("One."), b: text("Two.") });
      expectObservable(source.pipe(textBlocks(small)), "^ 5ms !").toBe("");
      expectSubscriptions(source.subscriptions).toBe("^ 5ms !");
    });
  });

  it("is linear: 1 MB written one character at a time", () => {
    const line = `${"word ".repeat(19)}end.\n`;
    const body = line.repeat(Math.ceil(1_000_000 / line.length));
    const events: AgentEvent[] = Array.from(body, (ch) => text(ch));
    events.push(end);
    let chars = 0;
    let blocks = 0;
    from(events)
      .pipe(textBlocks(options(800, 1200, "paragraph")))
      .subscribe((step) => {
        if (step.kind !== "block") return;
        blocks += 1;
        chars += step.text.length;
      });
    expect(blocks).toBeGreaterThan(800);
    // Only the whitespace at the cuts is dropped.
    expect(chars).toBeGreaterThan(body.length * 0.99);
  });
});
