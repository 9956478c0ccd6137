import { describe, expect, it } from "vitest";
import { timer, type Observable as Obs } from "rxjs";
import { ignoreElements } from "rxjs/operators";
import type { AgentEvent, QuestionEvent } from "../../../operators/delivery/agentEvent.js";
import { withQuestions } from "../../../src/turn/questions/withQuestions.js";
import { testScheduler } from "../../helpers/marbles.js";

const q = (id: string): QuestionEvent => ({ type: "question", kind: "ask", questions: [], timeoutMs: 1, settle: () => undefined, fallbackLabel: id });
const events: Record<string, AgentEvent> = {
  a: { type: "text", text: "a" },
  b: { type: "text", text: "b" },
  q: q("q"),
  e: { type: "end", stopReason: "end_turn" },
};

describe("withQuestions", () => {
  it("takes questions out of the stream and asks each beside it; the rest pass in order", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const asked = cold<never>("---|");
      const source = cold("a-q-b-e|", events);
      expectObservable(source.pipe(withQuestions(() => asked))).toBe("a---b-e|", events);
      expectSubscriptions(asked.subscriptions).toBe("--^--!");
    });
  });

  it("tears down a question still being asked when the turn completes", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const asked = cold<never>("-");
      expectObservable(cold("-q--|", events).pipe(withQuestions(() => asked))).toBe("----|");
      expectSubscriptions(asked.subscriptions).toBe("-^--!");
    });
  });

  it("tears down a question still being asked when the turn errors", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const asked = cold<never>("-");
      expectObservable(cold("-q--#", events).pipe(withQuestions(() => asked))).toBe("----#");
      expectSubscriptions(asked.subscriptions).toBe("-^--!");
    });
  });

  it("tears down a question still being asked when the turn is unsubscribed", () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const asked = cold<never>("-");
      const source = hot("-q-a---", events);
      expectObservable(source.pipe(withQuestions(() => asked)), "^---!").toBe("---a", events);
      expectSubscriptions(asked.subscriptions).toBe("-^--!");
    });
  });

  it("asks two questions side by side, each with its own subscription, and a question does not hold the turn's completion", () => {
    const seen: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const ask = (question: QuestionEvent): Obs<never> => {
        seen.push(question.fallbackLabel ?? "");
        return timer(5).pipe(ignoreElements());
      };
      const two: Record<string, AgentEvent> = { ...events, r: q("r") };
      expectObservable(cold("qr-a|", two).pipe(withQuestions(ask))).toBe("---a|", two);
    });
    expect(seen).toEqual(["q", "r"]);
  });
});
