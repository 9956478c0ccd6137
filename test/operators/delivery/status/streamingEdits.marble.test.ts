import { concat, of } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import { preview, streamingEdits, type StreamingEditsOptions, type StreamingStep } from "../../../../operators/delivery/status/streamingEdits.js";
import { SESSION_RESET_NOTICE } from "../../../../operators/delivery/turnTranscript.js";
import { testScheduler } from "../../../helpers/marbles.js";

// OpenAB's streaming edit loop in virtual time: one frame is one millisecond, so an edit can land
// only at 1500, 3000, 4500 … after the turn started.

const text = (chunk: string): AgentEvent => ({ type: "text", text: chunk });
const end: AgentEvent = { type: "end", stopReason: "end_turn" };
const options: StreamingEditsOptions = { placeholder: true, toolDisplay: "full", limit: 4096 };

/** The steps as compact strings: `open:…`, `edit:…`, `final:<buffer>`. */
function steps(values: readonly StreamingStep[]): string[] {
  return values.map((step) => (step.kind === "final" ? `final:${step.transcript.buffer}` : `${step.kind}:${step.text}`));
}

describe("streamingEdits", () => {
  it("opens with the placeholder at once, edits at most every 1.5 s with the text so far, then ends with the transcript", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // Text at 100, 900, 2000 and 3100; the turn ends at 4000.
      const events = cold("100ms a 799ms b 1099ms c 1099ms d 899ms (e|)", { a: text("Hel"), b: text("lo"), c: text(", wor"), d: text("ld"), e: end });
      expectObservable(events.pipe(streamingEdits(options))).toBe("o 1499ms x 1499ms y 999ms (f|)", {
        o: { kind: "open", text: "…" },
        x: { kind: "edit", text: "Hello" },
        y: { kind: "edit", text: "Hello, wor" },
        f: expect.objectContaining({ kind: "final", transcript: expect.objectContaining({ buffer: "Hello, world" }) }),
      });
    });
  });

  it("edits only when what it shows changed: a tick after nothing new sends nothing", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold("100ms a 4899ms (e|)", { a: text("hi"), e: end });
      expectObservable(events.pipe(streamingEdits(options))).toBe("o 1499ms x 3499ms (f|)", {
        o: { kind: "open", text: "…" },
        x: { kind: "edit", text: "hi" },
        f: expect.objectContaining({ kind: "final" }),
      });
    });
  });

  it("shows the tool summary as upstream composes it while streaming", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("100ms a 1499ms b 1499ms (e|)", {
        a: { type: "tool_start", id: "t1", title: "Read file" },
        b: { type: "tool_done", id: "t1", status: "completed" },
        e: end,
      });
      expectObservable(events.pipe(streamingEdits(options))).toBe("o 1499ms x 1499ms y 99ms (f|)", {
        o: { kind: "open", text: "…" },
        // Upstream's layout: the summary's lines, then a blank line, then the (still empty) text.
        x: { kind: "edit", text: "🔧 `Read file`...\n\n" },
        y: { kind: "edit", text: "✅ `Read file`\n\n" },
        f: expect.objectContaining({ kind: "final" }),
      });
    });
  });

  it("leads the placeholder with the reset notice when the session was lost", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // The pool leads a lost session's turn with session_reset synchronously, as `concat(of(…), turn)` does.
      const events = concat(of<AgentEvent>({ type: "session_reset" }), cold("100ms (e|)", { e: end }));
      expectObservable(events.pipe(streamingEdits(options))).toBe("o 99ms (f|)", {
        o: { kind: "open", text: `${SESSION_RESET_NOTICE}…` },
        f: expect.objectContaining({ kind: "final" }),
      });
    });
  });

  it("without a placeholder, opens with the first text at the first tick that has some", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold("2000ms a 2999ms (e|)", { a: text("late"), e: end });
      expectObservable(events.pipe(streamingEdits({ ...options, placeholder: false }))).toBe("3000ms o 1999ms (f|)", {
        o: { kind: "open", text: "late" },
        f: expect.objectContaining({ kind: "final" }),
      });
    });
  });

  it("a turn that is over before it could open is its final step alone", () => {
    testScheduler().run(({ expectObservable }) => {
      // An instant agent: the whole turn arrives while the operator subscribes.
      const events = of(text("instant"), end);
      expectObservable(events.pipe(streamingEdits(options))).toBe("(f|)", { f: expect.objectContaining({ kind: "final", transcript: expect.objectContaining({ buffer: "instant" }) }) });
    });
  });

  it("an agent error ends the turn: the final transcript carries it with the text so far", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold("100ms a 99ms #", { a: text("partial") }, new Error("Agent process died"));
      expectObservable(events.pipe(streamingEdits(options))).toBe("o 199ms (f|)", {
        o: { kind: "open", text: "…" },
        f: expect.objectContaining({ kind: "final", transcript: expect.objectContaining({ buffer: "partial", agentError: expect.stringContaining("Agent process died") }) }),
      });
    });
  });

  it("stops its timer when unsubscribed (the turn cancelled from outside)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold("100ms a 9899ms (e|)", { a: text("x"), e: end });
      expectObservable(events.pipe(streamingEdits(options)), "^ 2000ms !").toBe("o 1499ms x", { o: { kind: "open", text: "…" }, x: { kind: "edit", text: "x" } });
    });
  });

  it("records every step in order for a long turn (one edit per changed tick)", () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const seen: StreamingStep[] = [];
      // Text at 0, 1000, 2200, 3200, 4200 and 5200 (never on a tick); the turn ends at 6100.
      const events = cold("a 999ms b 1199ms c 999ms d 999ms e 999ms f 899ms (g|)", { a: text("1"), b: text("2"), c: text("3"), d: text("4"), e: text("5"), f: text("6"), g: end });
      const run = events.pipe(streamingEdits(options));
      run.subscribe((step) => seen.push(step));
      expectObservable(run).toBe("o 1499ms a 1499ms b 1499ms c 1499ms d 99ms (f|)", {
        o: { kind: "open", text: "…" },
        a: { kind: "edit", text: "12" },
        b: { kind: "edit", text: "123" },
        c: { kind: "edit", text: "12345" },
        d: { kind: "edit", text: "123456" },
        f: expect.objectContaining({ kind: "final" }),
      });
      flush();
      expect(steps(seen)).toEqual(["open:…", "edit:12", "edit:123", "edit:12345", "edit:123456", "final:123456"]);
    });
  });
});

describe("preview (a streaming message over the limit shows its tail)", () => {
  it("keeps text up to limit − 100 characters as it is", () => {
    expect(preview("x".repeat(100), 200)).toBe("x".repeat(100));
  });

  it("shows … and the last limit − 100 characters beyond that, counting code points", () => {
    const tail = preview(`${"a".repeat(50)}${"😀".repeat(101)}`, 200);
    expect(tail).toBe(`…${"😀".repeat(100)}`);
  });

  it("is linear: a 1 MB text previews at once", () => {
    const big = "y".repeat(1_000_000);
    expect(preview(big, 4096)).toHaveLength(1 + 3996);
  });
});
