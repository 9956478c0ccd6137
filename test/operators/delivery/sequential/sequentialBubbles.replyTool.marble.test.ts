import { describe, expect, it } from "vitest";
import { of, type Observable } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import type { AgentEvent, ReplyBubblesEvent, ReplyBubblesOutcome } from "../../../../operators/delivery/agentEvent.js";
import type { SendReceipt } from "../../../../operators/delivery/outboundMessage.js";
import {
  REPLY_TOOL_BUBBLE_ID,
  sequentialBubbles,
  type SequentialBubblesOptions,
  type SequentialReport,
} from "../../../../operators/delivery/sequential/sequentialBubbles.js";
import { sequentialOutcome } from "../../../../operators/delivery/sequential/sequentialOutcome.js";
import { emptyTranscript, type TurnTranscript } from "../../../../operators/delivery/turnTranscript.js";
import { testScheduler } from "../../../helpers/marbles.js";

const receipt: SendReceipt = { messageId: "gw-1" };
const end: AgentEvent = { type: "end", stopReason: "end_turn" };
const ended = (fields: Partial<TurnTranscript> = {}): TurnTranscript => ({ ...emptyTranscript(), stopReason: "end_turn", ...fields });
const report = (fields: Partial<SequentialReport> & Pick<SequentialReport, "bubblesSent" | "transcript">): SequentialReport => ({
  capped: false,
  dropped: 0,
  filesSent: 0,
  ...fields,
});

interface Sent {
  readonly at: number;
  readonly text: string;
  readonly index: number;
  readonly quote: string | undefined;
}

interface Settled {
  readonly at: number;
  readonly call: string;
  readonly outcome: ReplyBubblesOutcome;
}

/**
 * One turn's recorders: `send` keeps when each message left (virtual ms) and answers with
 * `ack(text)`; `call` builds a `reply_bubbles` event whose settles are kept, by name, with their time.
 */
function recorders(scheduler: TestScheduler, ack: (text: string) => Observable<SendReceipt> = () => of(receipt)) {
  const sent: Sent[] = [];
  const settled: Settled[] = [];
  const sendBubble: SequentialBubblesOptions["sendBubble"] = (text, index, quote) => {
    sent.push({ at: scheduler.now(), text, index, quote });
    return ack(text);
  };
  const call = (name: string, ...messages: string[]): ReplyBubblesEvent => ({
    type: "reply_bubbles",
    messages,
    settle: (outcome) => settled.push({ at: scheduler.now(), call: name, outcome }),
  });
  return { sent, settled, sendBubble, call };
}

const outcome = (delivered: number, dropped = 0, failed = false): ReplyBubblesOutcome => ({ delivered, dropped, failed });

describe("sequentialBubbles: reply_bubbles (the reply tool's sequential calls)", () => {
  it("sends a call's 3 messages paced delayMs from each departure and settles it once, after the 3rd ack", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler, () => cold("50ms (k|)", { k: receipt }));
      const turn = cold<AgentEvent>("r 999ms e|", { r: rec.call("r", "one", "two", "three"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 5, limit: 4096 }));
      expectObservable(out).toBe("1001ms (r|)", { r: report({ bubblesSent: 3, transcript: ended({ replyCalls: 1 }) }) });
    });
    expect(rec.sent).toEqual([
      { at: 0, text: "one", index: 0, quote: undefined },
      { at: 400, text: "two", index: 1, quote: undefined },
      { at: 800, text: "three", index: 2, quote: undefined },
    ]);
    // Not at 50 or 450 (earlier messages' acks): only the last ack settles the call.
    expect(rec.settled).toEqual([{ at: 850, call: "r", outcome: outcome(3) }]);
  });

  it("settles two calls around a gap each after its own acks", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler, () => cold("50ms (k|)", { k: receipt }));
      const turn = cold<AgentEvent>("r 999ms q 999ms e|", { r: rec.call("r", "a", "b"), q: rec.call("q", "c"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 5, limit: 4096 }));
      expectObservable(out).toBe("2001ms (r|)", { r: report({ bubblesSent: 3, transcript: ended({ replyCalls: 2 }) }) });
    });
    expect(rec.sent.map(({ at, text, index }) => [at, text, index])).toEqual([
      [0, "a", 0],
      [400, "b", 1],
      [1000, "c", 2],
    ]);
    expect(rec.settled).toEqual([
      { at: 450, call: "r", outcome: outcome(2) },
      { at: 1050, call: "q", outcome: outcome(1) },
    ]);
  });

  it("caps a call over max_bubbles: 2 of 3 sent, settled {delivered 2, dropped 1}, the turn capped", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("r-e|", { r: rec.call("r", "a", "b", "c"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 2, limit: 4096 }));
      const r = report({ bubblesSent: 2, capped: true, dropped: 1, firstDroppedId: REPLY_TOOL_BUBBLE_ID, transcript: ended({ replyCalls: 1 }) });
      expectObservable(out).toBe("400ms (r|)", { r });
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "success" });
    });
    expect(rec.sent.map(({ at, text }) => [at, text])).toEqual([
      [0, "a"],
      [400, "b"],
    ]);
    expect(rec.settled).toEqual([{ at: 400, call: "r", outcome: outcome(2, 1) }]);
  });

  it("settles a call entirely over the cap at once, with 0 delivered, while the earlier call is still sending", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("r 9ms q-e|", { r: rec.call("r", "a", "b"), q: rec.call("q", "c", "d"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 2, limit: 4096 }));
      const r = report({ bubblesSent: 2, capped: true, dropped: 2, firstDroppedId: REPLY_TOOL_BUBBLE_ID, transcript: ended({ replyCalls: 2 }) });
      expectObservable(out).toBe("400ms (r|)", { r });
    });
    expect(rec.sent.map((s) => s.text)).toEqual(["a", "b"]);
    expect(rec.settled).toEqual([
      { at: 10, call: "q", outcome: outcome(0, 2) },
      { at: 400, call: "r", outcome: outcome(2) },
    ]);
  });

  it("skips blank messages (not sent, not counted toward the cap); an all-blank call settles at once", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("r-w-q-e|", {
        r: rec.call("r", "a", " \n\t ", "b"),
        w: rec.call("w", "", "\u3000"),
        q: rec.call("q", "c"),
        e: end,
      });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 0, maxBubbles: 3, limit: 4096 }));
      expectObservable(out).toBe("7ms (r|)", { r: report({ bubblesSent: 3, transcript: ended({ replyCalls: 3 }) }) });
    });
    expect(rec.sent.map(({ text, index }) => [text, index])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
    ]);
    expect(rec.settled).toEqual([
      { at: 0, call: "r", outcome: outcome(2) },
      { at: 2, call: "w", outcome: outcome(0) },
      { at: 4, call: "q", outcome: outcome(1) },
    ]);
  });

  it("settles the call in flight with failed: true when one of its sends fails; its later messages are not sent", () => {
    const scheduler = testScheduler();
    const rejected = new Error("gateway rejected the send");
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler, (text) => (text === "b" ? cold<SendReceipt>("50ms #", undefined, rejected) : of(receipt)));
      const turn = cold<AgentEvent>("r-e|", { r: rec.call("r", "a", "b", "c"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 5, limit: 4096 }));
      const r = report({ bubblesSent: 1, sendError: rejected, failedBubbleId: REPLY_TOOL_BUBBLE_ID, transcript: ended({ replyCalls: 1 }) });
      expectObservable(out).toBe("450ms (r|)", { r });
    });
    expect(rec.sent.map((s) => s.text)).toEqual(["a", "b"]);
    expect(rec.settled).toEqual([{ at: 450, call: "r", outcome: outcome(1, 0, true) }]);
  });

  it("settles a call queued behind the failed send with failed: true", () => {
    const scheduler = testScheduler();
    const rejected = new Error("ack timeout");
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler, (text) => (text === "a" ? cold<SendReceipt>("50ms #", undefined, rejected) : of(receipt)));
      const turn = cold<AgentEvent>("r-q-e|", { r: rec.call("r", "a"), q: rec.call("q", "b"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 5, limit: 4096 }));
      expectObservable(out).toBe("50ms (r|)", {
        r: report({ bubblesSent: 0, sendError: rejected, failedBubbleId: REPLY_TOOL_BUBBLE_ID, transcript: ended({ replyCalls: 2 }) }),
      });
    });
    expect(rec.sent.map((s) => s.text)).toEqual(["a"]);
    expect(rec.settled).toEqual([
      { at: 50, call: "r", outcome: outcome(0, 0, true) },
      { at: 50, call: "q", outcome: outcome(0, 0, true) },
    ]);
  });

  // After a failed send the sends take nothing more; a call arriving then must still be answered,
  // or the agent waiting on its `reply` result would hold the turn until the hard timeout.
  it("settles a call that arrives after a send already failed with failed: true, at once", () => {
    const scheduler = testScheduler();
    const rejected = new Error("ack timeout");
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler, (text) => (text === "a" ? cold<SendReceipt>("5ms #", undefined, rejected) : of(receipt)));
      const turn = cold<AgentEvent>("r 9ms q-e|", { r: rec.call("r", "a"), q: rec.call("q", "b"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 0, maxBubbles: 5, limit: 4096 }));
      expectObservable(out).toBe("13ms (r|)", {
        r: report({ bubblesSent: 0, sendError: rejected, failedBubbleId: REPLY_TOOL_BUBBLE_ID, transcript: ended({ replyCalls: 2 }) }),
      });
    });
    expect(rec.sent.map((s) => s.text)).toEqual(["a"]);
    // q's answer to the model waits for this settle: without it the tool call would never return.
    expect(rec.settled).toEqual([
      { at: 5, call: "r", outcome: outcome(0, 0, true) },
      { at: 10, call: "q", outcome: outcome(0, 0, true) },
    ]);
  });

  it("settles an open call with what went out when the turn is unsubscribed mid-call", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("r 999ms e|", { r: rec.call("r", "a", "b", "c"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 400, maxBubbles: 5, limit: 4096 }));
      expectObservable(out, "^ 499ms !").toBe("");
      expectSubscriptions(turn.subscriptions).toBe("^ 499ms !");
    });
    expect(rec.sent.map(({ at, text }) => [at, text])).toEqual([
      [0, "a"],
      [400, "b"],
    ]);
    expect(rec.settled).toEqual([{ at: 500, call: "r", outcome: outcome(2) }]);
  });

  it("shares one cap and one order between openab_message and reply_bubbles", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("t-a-(rb)-q-e|", {
        t: { type: "text", text: "[[reply_to:m42]]\n" },
        a: { type: "openab_message", id: "bubble_1", text: "first" },
        r: rec.call("r", "second", "third"),
        b: { type: "openab_message", id: "bubble_2", text: "fourth" },
        q: rec.call("q", "fifth"),
        e: end,
      });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      const r = report({
        bubblesSent: 4,
        capped: true,
        dropped: 1,
        firstDroppedId: REPLY_TOOL_BUBBLE_ID,
        transcript: ended({ buffer: "[[reply_to:m42]]\n", replyCalls: 2 }),
      });
      expectObservable(out).toBe("12ms (r|)", { r });
    });
    expect(rec.sent.map(({ at, text, index, quote }) => [at, text, index, quote])).toEqual([
      [2, "first", 0, "m42"],
      [4, "second", 1, undefined],
      [4, "third", 2, undefined],
      [4, "fourth", 3, undefined],
    ]);
    expect(rec.settled).toEqual([
      { at: 4, call: "r", outcome: outcome(2) },
      { at: 9, call: "q", outcome: outcome(0, 1) },
    ]);
  });

  it("a reply call's first message quotes the [[reply_to:…]] header, as an openab_message would", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("t-r-e|", { t: { type: "text", text: "[[reply_to:m7]]\n" }, r: rec.call("r", "a", "b"), e: end });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("5ms (r|)", { r: report({ bubblesSent: 2, transcript: ended({ buffer: "[[reply_to:m7]]\n", replyCalls: 1 }) }) });
    });
    expect(rec.sent.map((s) => s.quote)).toEqual(["m7", undefined]);
  });

  it("counts calls in report.transcript.replyCalls, even ones that sent nothing, and never falls back to text then", () => {
    const scheduler = testScheduler();
    let rec!: ReturnType<typeof recorders>;
    scheduler.run(({ cold, expectObservable }) => {
      rec = recorders(scheduler);
      const turn = cold<AgentEvent>("x-r-w-e|", {
        x: { type: "text", text: "thinking out loud" },
        r: rec.call("r", " "),
        w: rec.call("w"),
        e: end,
      });
      const out = turn.pipe(sequentialBubbles({ sendBubble: rec.sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      const r = report({ bubblesSent: 0, transcript: ended({ buffer: "thinking out loud", replyCalls: 2 }) });
      expectObservable(out).toBe("7ms (r|)", { r });
      expect(sequentialOutcome(r)).toStrictEqual({ kind: "success" });
    });
    expect(rec.sent).toEqual([]);
    expect(rec.settled.map((s) => [s.call, s.outcome])).toEqual([
      ["r", outcome(0)],
      ["w", outcome(0)],
    ]);
  });
});
