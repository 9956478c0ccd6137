import { describe, expect, it } from "vitest";
import { EMPTY, of, throwError, type Observable } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import type { AgentEvent, OpenabMessageEvent } from "../../../../operators/delivery/agentEvent.js";
import type { SendReceipt } from "../../../../operators/delivery/outboundMessage.js";
import { warnIgnoredBubbles } from "../../../../operators/delivery/sequential/warnIgnoredBubbles.js";
import {
  sequentialBubbles,
  type SequentialBubblesOptions,
  type SequentialReport,
} from "../../../../operators/delivery/sequential/sequentialBubbles.js";
import { sequentialOutcome } from "../../../../operators/delivery/sequential/sequentialOutcome.js";
import { splitMessage } from "../../../../operators/delivery/text/splitMessage.js";
import { emptyTranscript, type TurnTranscript } from "../../../../operators/delivery/turnTranscript.js";
import { testScheduler } from "../../../helpers/marbles.js";

const bubble = (id: string, text: string): OpenabMessageEvent => ({ type: "openab_message", id, text });

const events = {
  a: bubble("bubble_1", "on it"),
  b: bubble("bubble_2", "checking your mail now"),
  c: bubble("bubble_3", "your flight moved to 8pm\ngate B12"),
  d: bubble("bubble_4", "anything else?"),
  w: bubble("blank", " \n\t\u3000\u0085 "),
  L: bubble("long", "line one\nline two\nline three"),
  t: { type: "text", text: "[[reply_to:m42]]\n" },
  x: { type: "text", text: "let me look. " },
  y: { type: "text", text: "found it." },
  s: { type: "tool_start", id: "t1", title: "search mail" },
  f: { type: "tool_done", id: "t1", status: "completed" },
  S: { type: "tool_start", id: "t2", title: "check flight" },
  F: { type: "tool_done", id: "t2", status: "completed" },
  e: { type: "end", stopReason: "end_turn" },
} satisfies Record<string, AgentEvent>;

const receipt: SendReceipt = { messageId: "gw-1" };
const ended = (fields: Partial<TurnTranscript> = {}): TurnTranscript => ({ ...emptyTranscript(), stopReason: "end_turn", ...fields });
const report = (fields: Partial<SequentialReport> & Pick<SequentialReport, "bubblesSent" | "transcript">): SequentialReport => ({
  capped: false,
  dropped: 0,
  filesSent: 0,
  ...fields,
});

interface SendCall {
  readonly at: number;
  readonly text: string;
  readonly index: number;
  readonly quote: string | undefined;
}

/** A `sendBubble` that records when each message left (virtual ms) and answers with `ack(text)`. */
function recordingSend(scheduler: TestScheduler, ack: (text: string) => Observable<SendReceipt> = () => of(receipt)) {
  const calls: SendCall[] = [];
  const sendBubble: SequentialBubblesOptions["sendBubble"] = (text, index, quote) => {
    calls.push({ at: scheduler.now(), text, index, quote });
    return ack(text);
  };
  return { calls, sendBubble };
}

const sent = (at: number, text: string, index: number, quote?: string): SendCall => ({ at, text, index, quote });

describe("sequentialBubbles", () => {
  it("sends each bubble on arrival (seqslow: 0 s, 2 s, 4 s with delay 0) and reports once at the end", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn = cold<AgentEvent>("a 1999ms b 1999ms c 99ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("4101ms (r|)", { r: report({ bubblesSent: 3, transcript: ended() }) });
      expectSubscriptions(turn.subscriptions).toBe("^ 4100ms !");
    });
    expect(calls).toEqual([
      sent(0, "on it", 0),
      sent(2000, "checking your mail now", 1),
      sent(4000, "your flight moved to 8pm\ngate B12", 2),
    ]);
  });

  it("spaces bubbles that arrive faster than the delay by 400 ms, from the scheduler passed in", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("a 99ms b 99ms c 99ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096, scheduler }));
      // The turn ended at 301 ms; the report waits for the last ack at 800 ms.
      expectObservable(out).toBe("800ms (r|)", { r: report({ bubblesSent: 3, transcript: ended() }) });
    });
    expect(calls.map((call) => call.at)).toEqual([0, 400, 800]);
  });

  it("paces from each departure: with 50 ms acks the bubbles still leave 400 ms apart", () => {
    const scheduler = testScheduler();
    let calls: readonly SendCall[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const recorder = recordingSend(scheduler, () => cold("50ms (k|)", { k: receipt }));
      calls = recorder.calls;
      const { sendBubble } = recorder;
      const turn = cold<AgentEvent>("a 99ms b 99ms c 99ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      // a leaves 0, acked 50; b leaves 400, acked 450; c leaves 800, acked 850.
      expectObservable(out).toBe("850ms (r|)", { r: report({ bubblesSent: 3, transcript: ended() }) });
    });
    expect(calls.map((call) => call.at)).toEqual([0, 400, 800]);
  });

  it("never sends before the previous ack: 600 ms acks, slower than the delay, set the gaps", () => {
    const scheduler = testScheduler();
    let calls: readonly SendCall[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const recorder = recordingSend(scheduler, () => cold("600ms (k|)", { k: receipt }));
      calls = recorder.calls;
      const { sendBubble } = recorder;
      const turn = cold<AgentEvent>("a 99ms b 99ms c 99ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      // a leaves 0, acked 600; b leaves 600, acked 1200; c leaves 1200, acked 1800.
      expectObservable(out).toBe("1800ms (r|)", { r: report({ bubblesSent: 3, transcript: ended() }) });
    });
    expect(calls.map((call) => call.at)).toEqual([0, 600, 1200]);
  });

  it("counts the cap over the whole turn, across tool calls: later bubbles are dropped and the turn is capped", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("-a-s-f-b-S-F-c-d-e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 4096 }));
      const tools = [
        { id: "t1", title: "search mail", state: "completed" },
        { id: "t2", title: "check flight", state: "completed" },
      ] as const;
      const r = report({ bubblesSent: 2, capped: true, dropped: 2, firstDroppedId: "bubble_3", transcript: ended({ tools }) });
      expectObservable(out).toBe("18ms (r|)", { r });
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "success" });
    });
    expect(calls).toEqual([sent(1, "on it", 0), sent(7, "checking your mail now", 1)]);
  });

  it("is not capped when the turn sends exactly max_bubbles", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("a-b-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 4096 }));
      expectObservable(out).toBe("5ms (r|)", { r: report({ bubblesSent: 2, transcript: ended() }) });
    });
    expect(calls).toHaveLength(2);
  });

  it("abandons the rest after a failed send: bubble 3 of 4 rejected → 2 sent, the 4th never sent", () => {
    const scheduler = testScheduler();
    const rejected = new Error("gateway rejected the send");
    let calls: readonly SendCall[] = [];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const fourth = cold<SendReceipt>("(k|)", { k: receipt });
      const recorder = recordingSend(scheduler, (text) =>
        text === events.c.text ? cold<SendReceipt>("50ms #", undefined, rejected) : text === events.d.text ? fourth : of(receipt),
      );
      calls = recorder.calls;
      const { sendBubble } = recorder;
      const turn = cold<AgentEvent>("(abcde|)", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      const r = report({ bubblesSent: 2, sendError: rejected, failedBubbleId: "bubble_3", transcript: ended() });
      // a at 0, b at 400, c leaves 800 and fails at 850: the report follows at once.
      expectObservable(out).toBe("850ms (r|)", { r });
      expectSubscriptions(fourth.subscriptions).toBe([]);
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "failed", error: "sequential delivery incomplete: 2 bubble(s) delivered" });
    });
    expect(calls.map((call) => [call.at, call.text])).toEqual([
      [0, "on it"],
      [400, "checking your mail now"],
      [800, "your flight moved to 8pm\ngate B12"],
    ]);
  });

  it("stops sending when bubble 2 of 3 fails, and still reads the turn to its end", () => {
    const scheduler = testScheduler();
    const rejected = new Error("ack timeout");
    const { calls, sendBubble } = recordingSend(scheduler, (text) =>
      text === events.b.text ? throwError(() => rejected) : of(receipt),
    );
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn = cold<AgentEvent>("a-b-x-c-y-e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      const r = report({
        bubblesSent: 1,
        sendError: rejected,
        failedBubbleId: "bubble_2",
        transcript: ended({ buffer: "let me look. found it." }),
      });
      expectObservable(out).toBe("11ms (r|)", { r });
      expectSubscriptions(turn.subscriptions).toBe("^ 10ms !");
    });
    expect(calls.map((call) => call.text)).toEqual(["on it", "checking your mail now"]);
  });

  it("fails the turn when the first bubble's send fails: 0 delivered, never a text fallback", () => {
    const scheduler = testScheduler();
    const rejected = new Error("channel closed");
    const { calls, sendBubble } = recordingSend(scheduler, () => throwError(() => rejected));
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("x-a-b-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      const r = report({ bubblesSent: 0, sendError: rejected, failedBubbleId: "bubble_1", transcript: ended({ buffer: "let me look. " }) });
      expectObservable(out).toBe("7ms (r|)", { r });
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "failed", error: "sequential delivery incomplete: 0 bubble(s) delivered" });
    });
    expect(calls.map((call) => call.text)).toEqual(["on it"]);
  });

  it("fails a bubble whose second message fails: the bubble is not counted", () => {
    const scheduler = testScheduler();
    const rejected = new Error("rejected");
    const { calls, sendBubble } = recordingSend(scheduler, (text) => (text === "line two" ? throwError(() => rejected) : of(receipt)));
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("a-L-b-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 10 }));
      expectObservable(out).toBe("7ms (r|)", {
        r: report({ bubblesSent: 1, sendError: rejected, failedBubbleId: "long", transcript: ended() }),
      });
    });
    expect(calls.map((call) => call.text)).toEqual(["on it", "line one", "line two"]);
  });

  it("counts a bubble whose send completes without a receipt (a beforeSend stage dropped it) as sent, and goes on", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler, (text) => (text === "checking your mail now" ? EMPTY : of(receipt)));
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("a-b-c-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("7ms (r|)", { r: report({ bubblesSent: 3, transcript: ended() }) });
    });
    expect(calls.map((call) => call.index)).toEqual([0, 1, 2]);
  });

  it("counts only the bubbles before a failed one when the failure comes after a slow ack", () => {
    const scheduler = testScheduler();
    const rejected = new Error("rejected");
    const { sendBubble } = recordingSend(scheduler, (text) => (text === "your flight moved to 8pm\ngate B12" ? scheduler.createColdObservable<SendReceipt>("30ms #", undefined, rejected) : scheduler.createColdObservable("20ms (r|)", { r: receipt })));
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("(abcd)-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      // a acked at 20, b at 40, c fails at 70; d is never sent.
      expectObservable(out).toBe("70ms (r|)", { r: report({ bubblesSent: 2, sendError: rejected, failedBubbleId: "bubble_3", transcript: ended() }) });
    });
  });

  it("reports an agent error after 2 bubbles in the transcript, after the pending send settled", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    const failure = new Error("JSON-RPC error -32000: simulated agent failure");
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn = cold<AgentEvent>("a-x-b--#", events, failure);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      const r = report({
        bubblesSent: 2,
        transcript: { ...emptyTranscript(), buffer: "let me look. ", agentError: "JSON-RPC error -32000: simulated agent failure" },
      });
      // b arrived at 4 ms and leaves at 400 ms, after the agent failed at 7 ms: what arrived is delivered.
      expectObservable(out).toBe("400ms (r|)", { r });
      expectSubscriptions(turn.subscriptions).toBe("^------!");
      expect(sequentialOutcome(r)).toStrictEqual({
        kind: "failed",
        error: "sequential turn failed after 2 bubble(s): JSON-RPC error -32000: simulated agent failure",
      });
    });
    expect(calls.map((call) => [call.at, call.text])).toEqual([
      [0, "on it"],
      [400, "checking your mail now"],
    ]);
  });

  it("sends nothing for a turn without openab_message: 0 bubbles, the text stays in the transcript", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("x-s-f-y-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      const r = report({
        bubblesSent: 0,
        transcript: ended({
          buffer: "let me look. found it.",
          answerStart: "let me look. ".length,
          tools: [{ id: "t1", title: "search mail", state: "completed" }],
        }),
      });
      expectObservable(out).toBe("9ms (r|)", { r });
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "text_fallback" });
    });
    expect(calls).toEqual([]);
  });

  it("reports at once for an empty turn", () => {
    const scheduler = testScheduler();
    const { sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("|").pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("(r|)", { r: report({ bubblesSent: 0, transcript: emptyTranscript() }) });
    });
  });

  it("splits an over-long bubble in place: its parts go out back to back before the next bubble", () => {
    const scheduler = testScheduler();
    expect(splitMessage(events.L.text, 10)).toEqual(["line one", "line two", "line three"]);
    let calls: readonly SendCall[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const recorder = recordingSend(scheduler, () => cold("50ms (k|)", { k: receipt }));
      calls = recorder.calls;
      const { sendBubble } = recorder;
      const out = cold<AgentEvent>("(La)-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 400, maxBubbles: 4, limit: 10 }));
      // L's parts leave at 0, 50, 100 (acked 150); a leaves 400 ms after the last part left.
      expectObservable(out).toBe("550ms (r|)", { r: report({ bubblesSent: 2, transcript: ended() }) });
    });
    expect(calls).toEqual([
      sent(0, "line one", 0),
      sent(50, "line two", 0),
      sent(100, "line three", 0),
      sent(500, "on it", 1),
    ]);
  });

  it("skips a part of a split bubble that is only whitespace", () => {
    const scheduler = testScheduler();
    const text = `first line\n${" ".repeat(10)}\nlast`;
    const parts = splitMessage(text, 10);
    expect(parts.some((part) => part.trim() === "")).toBe(true);
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("a|", { a: bubble("b1", text) }).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 10 }));
      expectObservable(out).toBe("-(r|)", { r: report({ bubblesSent: 1, transcript: emptyTranscript() }) });
    });
    expect(calls.map((call) => call.text)).toEqual(parts.filter((part) => part.trim() !== ""));
  });

  it("quotes the reply_to header only on the turn's very first message", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const long = bubble("long", "line one\nline two");
      const out = cold<AgentEvent>("(tL)-a-e|", { ...events, L: long }).pipe(
        sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 10 }),
      );
      // The group takes frames 0–3: a arrives at 5, the turn ends at 8.
      expectObservable(out).toBe("8ms (r|)", { r: report({ bubblesSent: 2, transcript: ended({ buffer: "[[reply_to:m42]]\n" }) }) });
    });
    expect(calls).toEqual([sent(0, "line one", 0, "m42"), sent(0, "line two", 0), sent(5, "on it", 1)]);
  });

  it("takes the header only from text received before the first bubble", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("a-t-b-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("7ms (r|)", { r: report({ bubblesSent: 2, transcript: ended({ buffer: "[[reply_to:m42]]\n" }) }) });
    });
    expect(calls.map((call) => call.quote)).toEqual([undefined, undefined]);
  });

  it("ignores blank bubbles: not sent, not counted toward the cap, not the first message", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("(tw)-a-w-b-w-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 4096 }));
      expectObservable(out).toBe("14ms (r|)", { r: report({ bubblesSent: 2, transcript: ended({ buffer: "[[reply_to:m42]]\n" }) }) });
    });
    expect(calls).toEqual([sent(5, "on it", 0, "m42"), sent(9, "checking your mail now", 1)]);
  });

  it("a turn with only blank bubbles falls back to the text path", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("w-y-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 4096 }));
      const r = report({ bubblesSent: 0, transcript: ended({ buffer: "found it." }) });
      expectObservable(out).toBe("5ms (r|)", { r });
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "text_fallback" });
    });
    expect(calls).toEqual([]);
  });

  it("keeps separate state per subscription (one turn each)", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recordingSend(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("a-b-c-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 4096 }));
      const r = report({ bubblesSent: 2, capped: true, dropped: 1, firstDroppedId: "bubble_3", transcript: ended() });
      expectObservable(out).toBe("7ms (r|)", { r });
      expectObservable(out).toBe("7ms (r|)", { r });
    });
    expect(calls.map((call) => call.index)).toEqual([0, 0, 1, 1]);
  });

  it("counts a sendBubble that throws as a failed send", () => {
    const scheduler = testScheduler();
    const boom = new Error("boom");
    scheduler.run(({ cold, expectObservable }) => {
      const sendBubble = (): Observable<SendReceipt> => {
        throw boom;
      };
      const out = cold<AgentEvent>("a-e|", events).pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 4096 }));
      expectObservable(out).toBe("3ms (r|)", {
        r: report({ bubblesSent: 0, sendError: boom, failedBubbleId: "bubble_1", transcript: ended() }),
      });
    });
  });

  it("rejects a cap below 1 and an invalid limit when built", () => {
    const sendBubble = () => of(receipt);
    expect(() => sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 0, limit: 4096 })).toThrow(RangeError);
    expect(() => sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 1.5, limit: 4096 })).toThrow(RangeError);
    expect(() => sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 2, limit: 0 })).toThrow(RangeError);
    expect(() => sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: Infinity, limit: 4096 })).not.toThrow();
  });
});

describe("warnIgnoredBubbles (mode is not sequential)", () => {
  it("passes every event through and warns once per turn, on the first openab_message", () => {
    const warned: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("x-w-a-b-y-e|", events);
      const out = turn.pipe(warnIgnoredBubbles((message) => warned.push(message.id)));
      expectObservable(out).toBe("x-w-a-b-y-e|", events);
      expectObservable(out).toBe("x-w-a-b-y-e|", events);
    });
    // Upstream warns before the blank check, so a blank bubble triggers it too.
    expect(warned).toEqual(["blank", "blank"]);
  });

  it("never warns for a turn without openab_message", () => {
    const warned: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold<AgentEvent>("x-y-e|", events).pipe(warnIgnoredBubbles((message) => warned.push(message.id)));
      expectObservable(out).toBe("x-y-e|", events);
    });
    expect(warned).toEqual([]);
  });
});
