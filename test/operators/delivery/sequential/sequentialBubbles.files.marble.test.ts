import { describe, expect, it } from "vitest";
import { of } from "rxjs";
import type { AgentEvent, FileReadyEvent, OpenabMessageEvent } from "../../../../operators/delivery/agentEvent.js";
import type { SendReceipt } from "../../../../operators/delivery/outboundMessage.js";
import { sequentialBubbles, type SequentialBubblesOptions } from "../../../../operators/delivery/sequential/sequentialBubbles.js";
import { testScheduler } from "../../../helpers/marbles.js";

// Issue 42: a sequential turn's files go in the bubbles' paced sequence, after the bubble they
// followed; one before the first bubble waits for it; a turn without bubbles leaves them to the text path.

const bubble = (id: string, text: string): OpenabMessageEvent => ({ type: "openab_message", id, text });
const file = (name: string): FileReadyEvent => ({ type: "file_ready", filename: name, size: 10, caption: "", ready: { kind: "stored", mimeType: "image/png", image: true, ref: name } });

const events = {
  a: bubble("bubble_1", "on it"),
  b: bubble("bubble_2", "here is the chart"),
  p: file("chart.png"),
  q: file("table.csv"),
  x: { type: "text", text: "plain words" },
  e: { type: "end", stopReason: "end_turn" },
} satisfies Record<string, AgentEvent>;

const receipt: SendReceipt = { messageId: "m" };

function recording(now: () => number) {
  const calls: string[] = [];
  const sendBubble: SequentialBubblesOptions["sendBubble"] = (text) => {
    calls.push(`${now()} ${text}`);
    return of(receipt);
  };
  const sendFile: NonNullable<SequentialBubblesOptions["sendFile"]> = (ready) => {
    calls.push(`${now()} file ${ready.filename}`);
    return of(receipt);
  };
  return { calls, sendBubble, sendFile };
}

describe("sequentialBubbles with files", () => {
  it("a file after a bubble goes after it, paced as a message: 400 ms after it left", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble, sendFile } = recording(() => scheduler.now());
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("a 9ms p 9ms b 9ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, sendFile, delayMs: 400, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("800ms (r|)", { r: expect.objectContaining({ bubblesSent: 2, filesSent: 1 }) });
    });
    expect(calls).toEqual(["0 on it", "400 file chart.png", "800 here is the chart"]);
  });

  it("files before the first bubble wait for it and go just before it, in order", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble, sendFile } = recording(() => scheduler.now());
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("p 9ms q 9ms a 9ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, sendFile, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("31ms (r|)", { r: expect.objectContaining({ bubblesSent: 1, filesSent: 2 }) });
    });
    expect(calls).toEqual(["20 file chart.png", "20 file table.csv", "20 on it"]);
  });

  it("a turn with no bubble sends no file here: the report leaves them to the text path", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble, sendFile } = recording(() => scheduler.now());
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("x 9ms p 9ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, sendFile, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("21ms (r|)", { r: expect.objectContaining({ bubblesSent: 0, filesSent: 0, transcript: expect.objectContaining({ files: [{ at: 11, file: events.p }] }) }) });
    });
    expect(calls).toEqual([]);
  });

  it("a file is counted in no cap: the cap drops bubbles, the file after them still goes", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble, sendFile } = recording(() => scheduler.now());
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("a 9ms b 9ms p 9ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, sendFile, delayMs: 0, maxBubbles: 1, limit: 4096 }));
      expectObservable(out).toBe("31ms (r|)", { r: expect.objectContaining({ bubblesSent: 1, filesSent: 1, capped: true, dropped: 1 }) });
    });
    expect(calls).toEqual(["0 on it", "20 file chart.png"]);
  });

  it("without sendFile, files are left to the caller", () => {
    const scheduler = testScheduler();
    const { calls, sendBubble } = recording(() => scheduler.now());
    scheduler.run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("a 9ms p 9ms e|", events);
      const out = turn.pipe(sequentialBubbles({ sendBubble, delayMs: 0, maxBubbles: 4, limit: 4096 }));
      expectObservable(out).toBe("21ms (r|)", { r: expect.objectContaining({ bubblesSent: 1, filesSent: 0 }) });
    });
    expect(calls).toEqual(["0 on it"]);
  });
});
