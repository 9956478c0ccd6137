import { describe, it } from "vitest";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { collectTranscript } from "../../../operators/delivery/collectTranscript.js";
import { emptyTranscript, SESSION_RESET_NOTICE, type TurnTranscript } from "../../../operators/delivery/turnTranscript.js";
import { AgentDiedError } from "../../../src/acp/errors.js";
import { testScheduler } from "../../helpers/marbles.js";

const transcript = (fields: Partial<TurnTranscript>): TurnTranscript => ({ ...emptyTranscript(), ...fields });

const events = {
  r: { type: "session_reset" },
  a: { type: "text", text: "Hello, " },
  b: { type: "text", text: "world" },
  s: { type: "tool_start", id: "t1", title: "grep" },
  u: { type: "tool_update", id: "t1", title: "grep -r foo", status: "in_progress" },
  d: { type: "tool_done", id: "t1", status: "completed" },
  S: { type: "tool_start", id: "t2", title: "curl" },
  D: { type: "tool_done", id: "t2", status: "failed" },
  e: { type: "end", stopReason: "end_turn", usage: { outputTokens: 12 } },
} satisfies Record<string, AgentEvent>;

describe("collectTranscript", () => {
  it("emits one transcript when the turn completes, and nothing before", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn = cold<AgentEvent>("-a 99ms b 199ms e|", events);
      expectObservable(turn.pipe(collectTranscript())).toBe("-- 99ms - 199ms -(t|)", {
        t: transcript({ buffer: "Hello, world", stopReason: "end_turn", usage: { outputTokens: 12 } }),
      });
      expectSubscriptions(turn.subscriptions).toBe("^- 99ms - 199ms -!");
    });
  });

  it("on an error mid-stream emits the text so far with agentError, then completes", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn = cold<AgentEvent>("-a--b--#", events, new AgentDiedError());
      expectObservable(turn.pipe(collectTranscript())).toBe("-------(t|)", {
        t: transcript({ buffer: "Hello, world", agentError: "Agent process died" }),
      });
      expectSubscriptions(turn.subscriptions).toBe("^------!");
    });
  });

  it("heads the buffer with the reset notice when session_reset comes first", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("r-a-b-e|", events);
      expectObservable(turn.pipe(collectTranscript())).toBe("-------(t|)", {
        t: transcript({
          buffer: `${SESSION_RESET_NOTICE}Hello, world`,
          reset: true,
          stopReason: "end_turn",
          usage: { outputTokens: 12 },
        }),
      });
    });
  });

  it("upserts tool events by id in call order and marks where the answer starts", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const turn = cold<AgentEvent>("-a-s-S-u-D-d-b-e|", events);
      expectObservable(turn.pipe(collectTranscript())).toBe("----------------(t|)", {
        t: transcript({
          buffer: "Hello, world",
          answerStart: "Hello, ".length,
          tools: [
            { id: "t1", title: "grep -r foo", state: "completed" },
            { id: "t2", title: "curl", state: "failed" },
          ],
          stopReason: "end_turn",
          usage: { outputTokens: 12 },
        }),
      });
    });
  });

  it("emits the empty transcript for a turn with no events", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<AgentEvent>("---|").pipe(collectTranscript())).toBe("---(t|)", { t: emptyTranscript() });
    });
  });

  it("emits nothing and unsubscribes from the turn when unsubscribed before the end", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn = cold<AgentEvent>("-a-b-----e|", events);
      expectObservable(turn.pipe(collectTranscript()), "^---!").toBe("-----");
      expectSubscriptions(turn.subscriptions).toBe("^---!");
    });
  });
});
