import { describe, expect, it } from "vitest";
import { of, type SchedulerAction, type SchedulerLike } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import { coalesceBlocks, coalesceJoiner, type CoalesceOptions } from "../../../../operators/delivery/blocks/coalesceBlocks.js";
import { testScheduler } from "../../../helpers/marbles.js";

/** Discord's coalescing (peers.md §6.2): min 1500, idle 1000, max 2000, paragraph joiner. */
const discord: CoalesceOptions = { minChars: 1500, idleMs: 1000, maxChars: 2000, joiner: "\n\n" };

/** A block of `n` chars of `letter`. */
const block = (letter: string, n: number): string => letter.repeat(n);

/** The test scheduler, counting how often an idle timer fired. */
function countingScheduler(scheduler: TestScheduler): { scheduler: SchedulerLike; fired: () => number } {
  let fired = 0;
  return {
    scheduler: {
      now: () => scheduler.now(),
      schedule: <S>(work: (this: SchedulerAction<S>, state?: S) => void, delay?: number, state?: S) =>
        scheduler.schedule<S>(function (this: SchedulerAction<S>, s?: S) {
          fired += 1;
          work.call(this, s);
        }, delay, state),
    },
    fired: () => fired,
  };
}

describe("coalesceBlocks (marbles)", () => {
  it("Discord: blocks of 800 and 800 at 0 and 200 ms are one message of 1602 chars at 1200 ms", () => {
    const a = block("a", 800);
    const b = block("b", 800);
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 199ms b 1999ms |", { a, b });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("1200ms x 999ms |", { x: `${a}\n\n${b}` });
    });
    expect(`${a}\n\n${b}`).toHaveLength(1602);
  });

  it("Discord: 1200 then 1000 — the 1200 leaves when the 1000 arrives, the 1000 is held (below 1500) until the end", () => {
    const a = block("a", 1200);
    const b = block("b", 1000);
    testScheduler().run(({ cold, expectObservable }) => {
      // Idle at 1100 ms finds 1000 chars, under minChars: it waits for the end at 3000 ms.
      const blocks = cold("a 99ms b 2899ms |", { a, b });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("100ms a 2899ms (b|)", { a, b });
    });
  });

  it("an idle flush sends a buffer that holds minChars, idleMs after the last block", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 4999ms |", { a: block("a", 1600) });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("1000ms a 3999ms |", { a: block("a", 1600) });
    });
  });

  it("an idle flush at exactly minChars sends", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 4999ms |", { a: block("a", 1500) });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("1000ms a 3999ms |", { a: block("a", 1500) });
    });
  });

  it("each block re-arms the idle timer: the message leaves idleMs after the last of them", () => {
    const options: CoalesceOptions = { minChars: 5, idleMs: 1000, maxChars: 100, joiner: " " };
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 899ms b 899ms c 2999ms |", { a: "one", b: "two", c: "three" });
      // c at 1800 ms; idle at 2800 ms.
      expectObservable(blocks.pipe(coalesceBlocks(options))).toBe("2800ms x 1999ms |", { x: "one two three" });
    });
  });

  it("an idle that finds too little keeps waiting: a later block that brings it to minChars leaves idleMs after that block", () => {
    const options: CoalesceOptions = { minChars: 8, idleMs: 100, maxChars: 100, joiner: "\n" };
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 499ms b 999ms |", { a: "four", b: "more" });
      // Idle at 100 ms finds 4 chars; b at 500 ms makes 9; idle at 600 ms sends.
      expectObservable(blocks.pipe(coalesceBlocks(options))).toBe("600ms x 899ms |", { x: "four\nmore" });
    });
  });

  it("sends a lone block at maxChars at once, and one over it as it is", () => {
    const exact = block("e", 2000);
    const over = block("o", 2500);
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms |", { a: exact, b: over });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("a 99ms b 99ms |", { a: exact, b: over });
    });
  });

  it("a block over maxChars after held text: the held text leaves, then the block, in the same moment", () => {
    const held = block("h", 300);
    const over = block("o", 2500);
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms |", { a: held, b: over });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("100ms (ab) 96ms |", { a: held, b: over });
    });
  });

  it("a message that reaches exactly maxChars with the joiner leaves at once", () => {
    const a = block("a", 999);
    const b = block("b", 999);
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms |", { a, b });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("100ms x 99ms |", { x: `${a}\n\n${b}` });
    });
  });

  it("starts a new message with the block that would pass maxChars, and idles on it", () => {
    const options: CoalesceOptions = { minChars: 1, idleMs: 500, maxChars: 10, joiner: " " };
    testScheduler().run(({ cold, expectObservable }) => {
      // "abcde fghij" would be 11: abcde leaves at 100 ms, fghij at 600 ms on idle.
      const blocks = cold("a 99ms b 999ms |", { a: "abcde", b: "fghij" });
      expectObservable(blocks.pipe(coalesceBlocks(options))).toBe("100ms a 499ms b 499ms |", { a: "abcde", b: "fghij" });
    });
  });

  it("on completion, the final flush sends what is held, however short, then completes", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms |", { a: "short", b: "text" });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("200ms (x|)", { x: "short\n\ntext" });
    });
  });

  it("completes with the source when nothing is held", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<string>("---|").pipe(coalesceBlocks(discord))).toBe("---|");
    });
  });

  it("on error, sends what is held, then the error", () => {
    const error = new Error("agent failed");
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms #", { a: "first", b: "second" }, error);
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("200ms (x#)", { x: "first\n\nsecond" }, error);
    });
  });

  it("errors with the source when nothing is held", () => {
    const error = new Error("agent failed");
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<string>("--#", undefined, error).pipe(coalesceBlocks(discord))).toBe("--#", undefined, error);
    });
  });

  it("an error after an idle flush sends nothing more before it", () => {
    const error = new Error("agent failed");
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 1999ms #", { a: block("a", 1600) }, error);
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("1000ms a 999ms #", { a: block("a", 1600) }, error);
    });
  });

  it("unsubscribing mid-idle emits nothing, unsubscribes the source and clears the timer", () => {
    const scheduler = testScheduler();
    const counting = countingScheduler(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const blocks = cold("a 9999ms |", { a: block("a", 1600) });
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, scheduler: counting.scheduler })), "^ 500ms !").toBe("");
      expectSubscriptions(blocks.subscriptions).toBe("^ 500ms !");
    });
    expect(counting.fired()).toBe(0);
  });

  it("reads time only from the injected scheduler", () => {
    const scheduler = testScheduler();
    const counting = countingScheduler(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const blocks = cold("a 1999ms |", { a: block("a", 1600) });
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, scheduler: counting.scheduler }))).toBe("1000ms a 999ms |", { a: block("a", 1600) });
    });
    expect(counting.fired()).toBe(1);
  });

  it("with idleMs 0 nothing leaves on idle (OpenClaw): only size and the end flush", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms c 99ms |", { a: block("a", 1600), b: block("b", 300), c: block("c", 500) });
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, idleMs: 0 }))).toBe("200ms x 99ms (c|)", {
        x: `${block("a", 1600)}\n\n${block("b", 300)}`,
        c: block("c", 500),
      });
    });
  });

  it("drops a block of only whitespace (OpenClaw: no text, no message)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("a 99ms b 99ms c 99ms |", { a: "one", b: " \n\t", c: "two" });
      expectObservable(blocks.pipe(coalesceBlocks(discord))).toBe("300ms (x|)", { x: "one\n\ntwo" });
    });
  });

  it("counts chars as Unicode scalar values, as platform limits do", () => {
    const options: CoalesceOptions = { minChars: 1, idleMs: 1000, maxChars: 4, joiner: " " };
    testScheduler().run(({ cold, expectObservable }) => {
      // "🎉🎉 🎉" is 4 chars (7 UTF-16 units): it reaches maxChars and leaves joined, at once.
      const blocks = cold("a 9ms b 9ms |", { a: "🎉🎉", b: "🎉" });
      expectObservable(blocks.pipe(coalesceBlocks(options))).toBe("10ms x 9ms |", { x: "🎉🎉 🎉" });
    });
  });

  it("joins with the joiner it is given", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("(ab|)", { a: "One.", b: "Two." });
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, joiner: "\n" }))).toBe("(x|)", { x: "One.\nTwo." });
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, joiner: " " }))).toBe("(y|)", { y: "One. Two." });
    });
  });

  it("joins with a line break, not the space, where a space would unmake Markdown: before a fence or list, after a fence's closer", () => {
    const F = "```";
    testScheduler().run(({ cold, expectObservable }) => {
      const blocks = cold("(abcde|)", { a: "Intro.", b: `${F}ts\nlet a = 1;\n${F}`, c: "After it.", d: "- an item", e: "Done." });
      // Sentence joiner: `Intro. ```ts` would open no fence, and ```` After it.` would close none.
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, joiner: " " }))).toBe("(x|)", { x: `Intro.\n${F}ts\nlet a = 1;\n${F}\nAfter it.\n- an item Done.` });
      expectObservable(blocks.pipe(coalesceBlocks({ ...discord, joiner: "\n\n" }))).toBe("(y|)", { y: `Intro.\n\n${F}ts\nlet a = 1;\n${F}\n\nAfter it.\n\n- an item\n\nDone.` });
    });
  });

  it("keeps a buffer of its own per subscription", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const coalesced = cold("a 99ms |", { a: "x" }).pipe(coalesceBlocks(discord));
      expectObservable(coalesced).toBe("100ms (a|)", { a: "x" });
      expectObservable(coalesced).toBe("100ms (a|)", { a: "x" });
    });
  });

  it("coalesces a synchronous source into one message", () => {
    const out: string[] = [];
    of("a", "b", "c").pipe(coalesceBlocks(discord)).subscribe((message) => out.push(message));
    expect(out).toEqual(["a\n\nb\n\nc"]);
  });

  it("rejects a maxChars below 1 and a negative idleMs", () => {
    expect(() => coalesceBlocks({ ...discord, maxChars: 0 })).toThrow(RangeError);
    expect(() => coalesceBlocks({ ...discord, maxChars: 1.5 })).toThrow(RangeError);
    expect(() => coalesceBlocks({ ...discord, idleMs: -1 })).toThrow(RangeError);
    expect(() => coalesceBlocks({ ...discord, idleMs: Number.NaN })).toThrow(RangeError);
  });
});

describe("coalesceJoiner", () => {
  it("is OpenClaw's joiner for each break preference", () => {
    expect(coalesceJoiner("paragraph")).toBe("\n\n");
    expect(coalesceJoiner("newline")).toBe("\n");
    expect(coalesceJoiner("sentence")).toBe(" ");
  });
});
