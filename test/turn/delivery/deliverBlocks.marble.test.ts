import { describe, expect, it } from "vitest";
import { of, type Observable } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { humanGap } from "../../../operators/delivery/blocks/humanDelay.js";
import { deliverBlocks } from "../../../src/turn/delivery/deliverBlocks.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { resolveConfig } from "../../../src/config/index.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";

// coalesce.max_chars = 1: every block is a message of its own, sent as it is cut.
const blocks = { enabled: true, min_chars: 20, max_chars: 60, break_preference: "sentence" as const, coalesce: { max_chars: 1 } };
const config = resolveConfig({ delivery: { blocks } });
const text = (t: string): AgentEvent => ({ type: "text", text: t, messageId: "m1" });
const end: AgentEvent = { type: "end", stopReason: "end_turn" };

function context(sent: [number, OutboundMessage][], scheduler: TurnContext["scheduler"], limit = 4096): TurnContext {
  const send = (message: OutboundMessage): Observable<SendReceipt> => {
    sent.push([scheduler.now(), message]);
    return of({ messageId: `m${sent.length}` });
  };
  return { send, sendStatus: send, scheduler, logger: captureLogs().logger, messageLimit: () => limit };
}

describe("deliverBlocks in virtual time", () => {
  it("sends each block as it is cut, and no final after them", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("a 99ms b 99ms c 99ms (d|)", {
        a: text("First sentence here. Second sentence "),
        b: text("is a bit longer. Third one. "),
        c: text("Fourth sentence ends it."),
        d: end,
      });
      expectObservable(events.pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, 0))).toBe("300ms |");
    });
    expect(sent.map(([at, m]) => [at, m.content.text])).toEqual([
      [100, "First sentence here. Second sentence is a bit longer."],
      [300, "Third one. Fourth sentence ends it."],
    ]);
  });

  it("paces blocks after the first by the gap, from departure", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("(abc|)", {
        a: text("First sentence here. Second sentence is a bit longer. "),
        b: text("Third one. Fourth sentence ends it."),
        c: end,
      });
      expectObservable(events.pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, (index) => index * 1000))).toBe("1000ms |");
    });
    expect(sent.map(([at]) => at)).toEqual([0, 1000]);
  });

  it("human_delay natural (peers.md §6.3): block 1 at 0, block 2 after d1, block 3 after d2, and the reply ends with block 3", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    const draws = [523, 1111];
    const gap = humanGap({ mode: "natural" }, (bound) => {
      expect(bound).toBe(1701);
      return draws.shift() ?? 0;
    });
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("(abcd|)", {
        a: text("First sentence here. Second sentence is a bit longer. "),
        b: text("Third sentence is here. Fourth sentence is longer still. "),
        c: text("Fifth one. Sixth sentence ends it."),
        d: end,
      });
      expectObservable(events.pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, gap))).toBe("3234ms |");
    });
    expect(sent.map(([at]) => at)).toEqual([0, 1323, 1323 + 1911]);
  });

  it("delivers a reply nothing was cut from by the text path: tool summary, silence, no response", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<AgentEvent>("(ab|)", { a: text("short"), b: end }).pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, 0))).toBe("|");
      expectObservable(cold<AgentEvent>("(ab|)", { a: text("NO_REPLY"), b: end }).pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, 0))).toBe("|");
      expectObservable(cold<AgentEvent>("(b|)", { b: end }).pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, 0))).toBe("|");
    });
    expect(sent.map(([, m]) => m.content.text)).toEqual(["short", "_(no response)_"]);
  });

  it("takes the directive header off the first block, which quotes its target", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("(abc|)", { a: text("[[reply_to:m42]]\nFirst sentence here. Second sentence is a bit longer. "), b: text("Third one. Fourth sentence ends it."), c: end });
      expectObservable(events.pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, 0))).toBe("|");
    });
    expect(sent.map(([, m]) => [m.content.text, m.quote_message_id])).toEqual([
      ["First sentence here. Second sentence is a bit longer.", "m42"],
      ["Third one. Fourth sentence ends it.", undefined],
    ]);
  });

  it("ends a streamed reply that failed with the agent's error, last", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("a-#", { a: text("First sentence here. Second sentence is a bit longer. More words follow") }, new Error("Agent process died"));
      expectObservable(events.pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler), config, 0))).toBe("--|");
    });
    expect(sent.map(([, m]) => m.content.text)).toEqual(["First sentence here. Second sentence is a bit longer.", "More words follow", "⚠️ Agent process died"]);
  });

  it("clamps block sizes to the platform limit", () => {
    const scheduler = testScheduler();
    const sent: [number, OutboundMessage][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("(ab|)", { a: text("word ".repeat(40)), b: end });
      expectObservable(events.pipe(deliverBlocks(gatewayEvent(), context(sent, scheduler, 30), config, 0))).toBe("|");
    });
    expect(sent.length).toBeGreaterThan(1);
    for (const [, m] of sent) expect(m.content.text.length).toBeLessThanOrEqual(30);
  });
});
