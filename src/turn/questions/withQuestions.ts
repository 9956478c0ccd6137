import { Observable, Subscription, type MonoTypeOperatorFunction } from "rxjs";
import type { AgentEvent, QuestionEvent } from "../../../operators/delivery/agentEvent.js";

/**
 * Takes a turn's `question` events out of its stream and asks each (`ask`) while the turn runs;
 * everything else passes on. A question is asked beside the stream, not in it: the agent waits for
 * the answer, and its other events must still flow. When the turn's stream ends — completes,
 * errors or is unsubscribed — what is still being asked is torn down (settled `cancelled`).
 * A hand-written subscriber because the questions' subscriptions live exactly as long as the turn.
 */
export function withQuestions(ask: (question: QuestionEvent) => Observable<never>): MonoTypeOperatorFunction<AgentEvent> {
  return (source) =>
    new Observable<AgentEvent>((subscriber) => {
      const asking = new Subscription();
      asking.add(
        source.subscribe({
          next: (event) => {
            if (event.type === "question") asking.add(ask(event).subscribe());
            else subscriber.next(event);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        }),
      );
      return asking;
    });
}
