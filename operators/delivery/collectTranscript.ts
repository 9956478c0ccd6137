import { materialize, reduce, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "./agentEvent.js";
import { emptyTranscript, reduceTranscript, withAgentError, type TurnTranscript } from "./turnTranscript.js";

/**
 * Folds one turn's events into its transcript, emitted once when the turn's stream completes.
 * An error ends the turn too: the transcript then carries the text so far and `agentError`, and
 * the result completes normally, because the text path still delivers what the agent said
 * (`⚠️ <error>` in front of it). `materialize` turns the error into a value the fold can see.
 */
export function collectTranscript(): OperatorFunction<AgentEvent, TurnTranscript> {
  return (events) =>
    events.pipe(
      materialize(),
      reduce((transcript, notification) => {
        if (notification.kind === "N") return reduceTranscript(transcript, notification.value);
        if (notification.kind === "E") return withAgentError(transcript, notification.error);
        return transcript;
      }, emptyTranscript()),
    );
}
