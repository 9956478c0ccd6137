import { Observable } from "rxjs";
import type { AgentEvent } from "./agentEvent.js";

/**
 * One turn's agent events with the `reply` tool calls made meanwhile merged in, in arrival order.
 * `calls` is subscribed first and unsubscribed the moment the turn ends — at its `end` event,
 * its error or its completion, whichever comes first — so a call can only ever land inside the
 * turn, before `end`, and a later one finds no turn to join. `calls` never completes the output;
 * its error fails the turn.
 */
export function withReplyCalls(calls: Observable<AgentEvent>): (turn: Observable<AgentEvent>) => Observable<AgentEvent> {
  return (turn) =>
    new Observable<AgentEvent>((subscriber) => {
      const taking = calls.subscribe({ next: (event) => subscriber.next(event), error: (err: unknown) => subscriber.error(err) });
      subscriber.add(taking);
      subscriber.add(
        turn.subscribe({
          next: (event) => {
            if (event.type === "end") taking.unsubscribe();
            subscriber.next(event);
          },
          error: (err: unknown) => {
            taking.unsubscribe();
            subscriber.error(err);
          },
          complete: () => {
            taking.unsubscribe();
            subscriber.complete();
          },
        }),
      );
    });
}
