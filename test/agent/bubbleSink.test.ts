import { describe, expect, it } from "vitest";
import { BubbleSink, bubbleToolResult, openabMessageUpdate } from "../../src/agent/bubbleSink.js";

interface Sent {
  method: string;
  params: { sessionId: string; update: { sessionUpdate: string; id: string; content: { type: string; text: string } } };
}

/** A sink over a recording transport; `failOn` (0-based send index) makes that send reject. */
function sinkWith(maxBubbles: number, failOn?: number) {
  const sent: Sent[] = [];
  let attempts = 0;
  const sink = new BubbleSink({
    sessionId: "s1",
    maxBubbles,
    send: async (method, params) => {
      if (attempts++ === failOn) throw new Error("EPIPE");
      sent.push({ method, params } as Sent);
    },
  });
  return { sink, sent, texts: () => sent.map((frame) => frame.params.update.content.text), attempts: () => attempts };
}

describe("BubbleSink", () => {
  it("sends each text as an openab_message session/update, numbered across the turn", async () => {
    const { sink, sent } = sinkWith(4);
    await sink.emit(["on it"]);
    await sink.emit(["checking", "your flight moved to 8pm\ngate B12"]);
    expect(sent.map((frame) => frame.method)).toEqual(["session/update", "session/update", "session/update"]);
    expect(sent.map((frame) => frame.params.update)).toStrictEqual([
      openabMessageUpdate("bubble_1", "on it"),
      openabMessageUpdate("bubble_2", "checking"),
      openabMessageUpdate("bubble_3", "your flight moved to 8pm\ngate B12"),
    ]);
    expect(sent.every((frame) => frame.params.sessionId === "s1")).toBe(true);
    expect(sink.sent).toBe(3);
  });

  it("skips blank texts without numbering them", async () => {
    const { sink, sent } = sinkWith(4);
    const delivery = await sink.emit(["", "  hi  ", "\n"]);
    expect(delivery).toStrictEqual({ delivered: [{ id: "bubble_1", text: "hi" }], undelivered: [] });
    expect(sent).toHaveLength(1);
  });

  it("waits for each send before the next", async () => {
    const order: string[] = [];
    const sink = new BubbleSink({
      sessionId: "s1",
      maxBubbles: 4,
      send: async (_method, params) => {
        const { text } = (params as Sent["params"]).update.content;
        order.push(`start ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`end ${text}`);
      },
    });
    await sink.emit(["a", "b"]);
    expect(order).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it("cuts a call short at the per-turn cap and reports exactly what went out", async () => {
    const { sink, texts } = sinkWith(3);
    await sink.emit(["one", "two"]);
    const delivery = await sink.emit(["three", "four", "five"]);
    expect(texts()).toEqual(["one", "two", "three"]);
    expect(delivery).toStrictEqual({ delivered: [{ id: "bubble_3", text: "three" }], undelivered: ["four", "five"], stopped: "capped" });
    expect(sink.capped).toBe(true);
    expect(bubbleToolResult(delivery, 3)).toBe(
      'delivered 1 of 3 message(s) to the user: ["three"]. NOT delivered: ["four","five"], because this turn reached its limit of 3 message(s). Do not call reply again this turn.',
    );
    const after = await sink.emit(["six"]);
    expect(after).toStrictEqual({ delivered: [], undelivered: ["six"], stopped: "capped" });
    expect(bubbleToolResult(after, 3)).toBe(
      'delivered 0 of 1 message(s) to the user. NOT delivered: ["six"], because this turn reached its limit of 3 message(s). Do not call reply again this turn.',
    );
  });

  it("a failed emit stops further bubbles, in this call and every later one", async () => {
    const { sink, texts, attempts } = sinkWith(4, 1);
    const delivery = await sink.emit(["one", "two", "three"]);
    expect(texts()).toEqual(["one"]);
    expect(delivery.stopped).toBe("failed");
    expect(delivery.undelivered).toEqual(["two", "three"]);
    expect(String(delivery.error)).toContain("EPIPE");
    expect(sink.failed).toBe(true);
    const later = await sink.emit(["four"]);
    expect(later).toStrictEqual({ delivered: [], undelivered: ["four"], stopped: "failed" });
    expect(attempts()).toBe(2);
    expect(bubbleToolResult(delivery, 4)).toContain('delivered 1 of 3 message(s) to the user: ["one"]. NOT delivered: ["two","three"], because sending failed.');
  });

  it("a send that throws synchronously counts as failed too", async () => {
    const sink = new BubbleSink({ sessionId: "s1", maxBubbles: 4, send: () => { throw new Error("closed"); } });
    expect((await sink.emit(["hi"])).stopped).toBe("failed");
  });

  it("tells the model plainly when everything went out, or nothing was there to send", async () => {
    const { sink } = sinkWith(4);
    expect(bubbleToolResult(await sink.emit(["a", "b"]), 4)).toBe("delivered 2 of 2 message(s) to the user.");
    expect(bubbleToolResult(await sink.emit(["", " "]), 4)).toBe("nothing was sent: every message was blank.");
  });
});
