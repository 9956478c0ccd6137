import { describe, it } from "vitest";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { withReplyCalls } from "../../../operators/delivery/withReplyCalls.js";
import { testScheduler } from "../../helpers/marbles.js";

const events = {
  a: { type: "text", text: "let me check" },
  b: { type: "text", text: "done" },
  x: { type: "reply_plan", envelope: '{"schema":"openab.turn.v1","messages":[{"id":"bubble_1","text":"x"}],"next":{"type":"stop"}}' },
  y: { type: "reply_plan", envelope: '{"schema":"openab.turn.v1","messages":[{"id":"bubble_1","text":"y"}],"next":{"type":"stop"}}' },
  z: { type: "reply_plan", envelope: '{"schema":"openab.turn.v1","messages":[{"id":"bubble_1","text":"z"}],"next":{"type":"stop"}}' },
  e: { type: "end", stopReason: "end_turn" },
} satisfies Record<string, AgentEvent>;

describe("withReplyCalls", () => {
  it("merges the calls into the turn's events in arrival order", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("--x--y-----", events);
      const turn = cold<AgentEvent>("a--b----e|", events);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("a-xb-y--e|", events);
      expectSubscriptions(calls.subscriptions).toBe("^-------!");
      expectSubscriptions(turn.subscriptions).toBe("^--------!");
    });
  });

  it("subscribes to the calls before the turn: a call made as the turn starts comes first", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const calls = cold<AgentEvent>("x", events);
      const turn = cold<AgentEvent>("a 9ms e|", events);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("(xa) 6ms e|", events);
    });
  });

  it("unsubscribes the calls at `end`: a call after it never appears, though the turn completes later", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("-x----z--", events);
      const turn = cold<AgentEvent>("a---e----|", events);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("ax--e----|", events);
      expectSubscriptions(calls.subscriptions).toBe("^---!");
    });
  });

  it("unsubscribes the calls at the turn's error, which fails the output", () => {
    const failure = new Error("Agent process died");
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("-x---z--", events);
      const turn = cold<AgentEvent>("a--#", events, failure);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("ax-#", events, failure);
      expectSubscriptions(calls.subscriptions).toBe("^--!");
    });
  });

  it("unsubscribes the calls when the turn completes without `end`", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("--x--z--", events);
      const turn = cold<AgentEvent>("a---|", events);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("a-x-|", events);
      expectSubscriptions(calls.subscriptions).toBe("^---!");
    });
  });

  it("never completes the output when the calls complete: the turn does", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const calls = cold<AgentEvent>("-x|", events);
      const turn = cold<AgentEvent>("a----b-e|", events);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("ax---b-e|", events);
      expectSubscriptions(calls.subscriptions).toBe("^-!");
    });
  });

  it("fails the output when the calls error, and unsubscribes the turn", () => {
    const failure = new Error("reply tool host closed");
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("--#", events, failure);
      const turn = cold<AgentEvent>("a-----e|", events);
      expectObservable(turn.pipe(withReplyCalls(calls))).toBe("a-#", events, failure);
      expectSubscriptions(turn.subscriptions).toBe("^-!");
      expectSubscriptions(calls.subscriptions).toBe("^-!");
    });
  });

  it("unsubscribes both the turn and the calls when the output is unsubscribed", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("-x---y--", events);
      const turn = cold<AgentEvent>("a--b---e|", events);
      expectObservable(turn.pipe(withReplyCalls(calls)), "^--!").toBe("ax-", events);
      expectSubscriptions(turn.subscriptions).toBe("^--!");
      expectSubscriptions(calls.subscriptions).toBe("^--!");
    });
  });

  it("subscribes to the calls afresh for each turn", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const calls = hot<AgentEvent>("-x---y--", events);
      const first = cold<AgentEvent>("a-e|", events);
      const second = cold<AgentEvent>("a-e|", events);
      expectObservable(first.pipe(withReplyCalls(calls))).toBe("axe|", events);
      expectObservable(second.pipe(withReplyCalls(calls)), "----^").toBe("----aye|", events);
      expectSubscriptions(calls.subscriptions).toBe(["^-!", "----^-!"]);
    });
  });
});
