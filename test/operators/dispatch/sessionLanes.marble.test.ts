import { describe, expect, it } from "vitest";
import { delay, Observable, of, Subject } from "rxjs";
import { sessionLanes, type LaneBatch, type SessionLanesOptions } from "../../../operators/dispatch/sessionLanes.js";
import { collectedPrompt, summaryLine } from "../../../operators/dispatch/queuedPrompt.js";
import { testScheduler } from "../../helpers/marbles.js";

const cost: Record<string, number> = { a: 10, q: 4 };
/** Each batch's work takes the first item's cost (default 1) and emits the items joined, plus summaries. */
const work = (batch: LaneBatch<string>) =>
  of(batch.items.join("") + (batch.summary.length > 0 ? `+${batch.summary.join(",")}` : "")).pipe(delay(cost[batch.items[0] ?? ""] ?? 1));

function lanes(options: Partial<SessionLanesOptions<string>> = {}, dropped: string[] = [], interrupts: string[] = []) {
  return sessionLanes<string, string>(() => "k", work, {
    mode: "collect",
    quietMs: 5,
    cap: 20,
    drop: "summarize",
    describe: (value) => value.toUpperCase(),
    onDropped: (values) => dropped.push(...values),
    onInterrupt: (key) => interrupts.push(key),
    ...options,
  });
}

describe("sessionLanes", () => {
  it("runs a value for an idle key at once", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("b|").pipe(lanes())).toBe("-(x|)", { x: "b" });
    });
  });

  it("collect: everything that arrived while busy runs as one batch once the key is free and quiet", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // a runs 0–10; b (2) and c (4) wait; quiet since 4 + 5 = 9 < 10, so [b, c] starts at 10.
      expectObservable(cold("a-b-c------|").pipe(lanes())).toBe("10ms x (y|)", { x: "a", y: "bc" });
    });
  });

  it("waits out the quiet window after the last arrival before draining", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // b arrives at 8: drained at 8 + 5 = 13, done at 14.
      expectObservable(cold("a 7ms b 10ms |").pipe(lanes())).toBe("10ms x 3ms y 4ms |", { x: "a", y: "b" });
    });
  });

  it("followup: each waiting value runs as its own batch, in order", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("a-b-c------|").pipe(lanes({ mode: "followup" }))).toBe("10ms x y (z|)", { x: "a", y: "b", z: "c" });
    });
  });

  it("interrupt: asks the running work to stop once, drops superseded values, runs the newest", () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const dropped: string[] = [];
      const interrupts: string[] = [];
      expectObservable(cold("a-b-c------|").pipe(lanes({ mode: "interrupt" }, dropped, interrupts))).toBe("10ms x (y|)", { x: "a", y: "c" });
      flush();
      expect(interrupts).toEqual(["k"]);
      expect(dropped).toEqual(["b"]);
    });
  });

  // a runs; b, c, d fill the queue (cap 3); e and f overflow it.
  it.each([
    ["new", "bcd", ["e", "f"], []],
    ["old", "def", ["b", "c"], []],
    ["summarize", "def", ["b", "c"], ["B", "C"]],
  ] as const)("cap 3, drop %s", (drop, runs, droppedExpected, summary) => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const dropped: string[] = [];
      const second = summary.length > 0 ? `${runs}+${summary.join(",")}` : runs;
      expectObservable(cold("(abcdef)----|").pipe(lanes({ cap: 3, drop }, dropped))).toBe("10ms x y |", { x: "a", y: second });
      flush();
      expect(dropped).toEqual(droppedExpected);
    });
  });

  it("completes only after every waiting batch ran", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("ab|").pipe(lanes())).toBe("10ms x (y|)", { x: "a", y: "b" });
    });
  });
});

describe("sessionLanes: synchronous work", () => {
  const syncOptions: SessionLanesOptions<string> = {
    mode: "followup",
    quietMs: 0,
    cap: 20,
    drop: "summarize",
    describe: (value) => value,
    onDropped: () => undefined,
  };

  it("runs instant work for idle keys one after another, each key alone, and completes", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a-b-a|").pipe(sessionLanes<string, string>((v) => v, (batch) => of(batch.items.join("")), syncOptions));
      expectObservable(out).toBe("a-b-a|");
    });
  });

  it("queues a value of the same key that arrives while its first value's work is still running synchronously", () => {
    const source = new Subject<string>();
    const log: string[] = [];
    let depth = 0;
    const work = (batch: LaneBatch<string>) =>
      new Observable<string>((subscriber) => {
        depth += 1;
        log.push(`start ${batch.items.join("")} at depth ${depth}`);
        // The work itself causes more values: of its own key (must wait) and of another (runs at once).
        if (batch.items[0] === "k1") source.next("k2");
        if (batch.items[0] === "k1") source.next("j1");
        if (batch.items[0] === "j1") source.next("k3");
        log.push(`end ${batch.items.join("")}`);
        depth -= 1;
        subscriber.next(batch.items.join(""));
        subscriber.complete();
      });
    const seen: string[] = [];
    let completed = false;
    source.pipe(sessionLanes<string, string>((v) => v.slice(0, 1), work, syncOptions)).subscribe({ next: (v) => seen.push(v), complete: () => (completed = true) });
    source.next("k1");
    source.complete();
    expect(log).toEqual(["start k1 at depth 1", "start j1 at depth 2", "end j1", "end k1", "start k2 at depth 1", "end k2", "start k3 at depth 1", "end k3"]);
    expect(seen).toEqual(["j1", "k1", "k2", "k3"]);
    expect(completed).toBe(true);
  });
});

describe("sessionLanes: a bounded collect batch (OpenAB's batching)", () => {
  /** Tokens are the value's length; `a` runs 10 frames, everything else 1. */
  const bound = (items: number, tokens: number) => ({ items, tokens, tokensOf: (value: string) => value.length });

  it("takes at most `items` waiting values; the rest run as the next batch, in order, at once", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // a runs 0–10; b c d e wait (quiet since 9); [b c] at 10–11, [d e] at 11–12.
      expectObservable(cold("a-bcde-----|").pipe(lanes({ bound: bound(2, 100) }))).toBe("10ms x y (z|)", { x: "a", y: "bc", z: "de" });
    });
  });

  it("keeps the value that would overflow `tokens` for the next batch", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // b (1) + cc (2) = 3 fits; + ddd (3) = 6 > 5: ddd waits and heads the next batch with e.
      const values = { a: "a", b: "b", c: "cc", d: "ddd", e: "e" };
      expectObservable(cold("a-bcde-----|", values).pipe(lanes({ bound: bound(10, 5) }))).toBe("10ms x y (z|)", { x: "a", y: "bcc", z: "ddde" });
    });
  });

  it("always takes the first waiting value, even one over `tokens` alone", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const values = { a: "a", b: "bbbbbbbb", c: "c" };
      expectObservable(cold("a-bc-------|", values).pipe(lanes({ bound: bound(10, 5) }))).toBe("10ms x y (z|)", { x: "a", y: "bbbbbbbb", z: "c" });
    });
  });

  it("the next batch still waits out the quiet window when a value arrived meanwhile", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // a runs 0–10; [q c] 10–14 (q costs 4) with d left; e arrives at 12, so [d e] waits until 12 + 5 = 17 and is done at 18.
      expectObservable(cold("a-qcd-------e--------|").pipe(lanes({ bound: bound(2, 100) }))).toBe("10ms x 3ms y 3ms z 2ms |", { x: "a", y: "qc", z: "de" });
    });
  });

  it("is a collect bound only: followup still runs one value per batch", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("a-bc-------|").pipe(lanes({ mode: "followup", bound: bound(5, 100) }))).toBe("10ms x y (z|)", { x: "a", y: "b", z: "c" });
    });
  });
});

describe("queued prompts", () => {
  it("summarizes a dropped message in one line of at most 160 chars (OpenClaw's vectors)", () => {
    expect(summaryLine("one")).toBe("one");
    expect(summaryLine("two  \n three")).toBe("two three");
    const long = summaryLine("x".repeat(200));
    expect([...long]).toHaveLength(160);
    expect(long.endsWith("…")).toBe(true);
  });

  it("builds the collect prompt with a block per message and its sender", () => {
    expect(collectedPrompt([{ sender: "Alice", text: "hi" }, { sender: "Alice", text: "also this" }])).toBe(
      "[Queued messages while agent was busy]\n\n---\nQueued #1 (from Alice)\nhi\n\n---\nQueued #2 (from Alice)\nalso this",
    );
  });

  it("adds the overflow block with the dropped summaries", () => {
    expect(collectedPrompt([{ sender: "Bob", text: "five" }], ["one", "two three"])).toBe(
      "[Queued messages while agent was busy]\n\n---\nQueued #1 (from Bob)\nfive\n\n[Queue overflow] Dropped 2 messages due to cap.\nSummary:\n- one\n- two three",
    );
  });
});

describe("OpenClaw's overflow vector (cap 3, summarize)", () => {
  it('queue ["one", "two  \\n three", 200×x] + "four", "five" → runs [200×x, four, five], dropped 2, summary ["one", "two three"]', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const dropped: string[] = [];
      const x200 = "x".repeat(200);
      const values = { r: "running", a: "one", b: "two  \n three", c: x200, d: "four", e: "five" };
      const batches: LaneBatch<string>[] = [];
      const out = cold("(rabcde)|", values).pipe(
        sessionLanes<string, LaneBatch<string>>(
          () => "k",
          (batch) => {
            batches.push(batch);
            return of(batch).pipe(delay(batch.items[0] === "running" ? 10 : 1));
          },
          { mode: "collect", quietMs: 0, cap: 3, drop: "summarize", describe: summaryLine, onDropped: (v) => dropped.push(...v) },
        ),
      );
      expectObservable(out).toBe("10ms x (y|)", { x: { items: ["running"], summary: [] }, y: { items: [x200, "four", "five"], summary: ["one", "two three"] } });
      flush();
      expect(dropped).toEqual(["one", "two  \n three"]);
      expect(batches).toHaveLength(2);
    });
  });
});
