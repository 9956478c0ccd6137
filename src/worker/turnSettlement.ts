import { PoolWaitTimeoutError } from "../acp/errors.js";
import type { EventOutcome, Instruments, TurnOutcome } from "../metrics/instruments.js";
import { StageError } from "../pipeline/errors.js";
import { isStateOutage } from "../state/errors.js";
import { NoAgentError } from "../turn/errors.js";
import type { TurnFact } from "../turn/turn.js";

/** Shared state was unreachable before anything reached the user: run the turn again later rather than lose it (settle nothing). */
export function defersTurn(ok: boolean, delivered: number, err: unknown): boolean {
  return !ok && delivered === 0 && isStateOutage(err);
}

/** What became of a settled turn: whether it ended ok, was answered before, and what the run saw on the way. */
export interface SettledFacts {
  readonly ok: boolean;
  /** Answered by an earlier delivery of the same event (`AlreadyDeliveredError`). */
  readonly repeated: boolean;
  /** The handler skipped a redelivery (`note("duplicate")`). */
  readonly redelivery: boolean;
  /** A handler ran. */
  readonly handled: boolean;
  /** Triage suppressed it. */
  readonly suppressed: boolean;
  /** The handler took it as an answer to a question asked in the chat (`note("answer")`), not a turn. */
  readonly answer?: boolean;
}

/** Where a settled turn's events ended up, each counting once. */
export function eventFate(facts: SettledFacts): Extract<EventOutcome, "turn" | "answer" | "duplicate" | "suppressed" | "dropped"> {
  if (facts.repeated || (facts.redelivery && facts.ok)) return "duplicate";
  if (facts.answer === true && facts.ok) return "answer";
  // A failure before any handler (a stage that threw, no agent wired) is a failed turn all the same.
  if (facts.handled || !facts.ok) return "turn";
  return facts.suppressed ? "suppressed" : "dropped";
}

/** A settled turn's outcome, counted when its events' fate is `turn`. */
export function turnOutcome(ok: boolean, agentError: boolean): TurnOutcome {
  return !ok ? "failed" : agentError ? "agent_error" : "completed";
}

/** The stable `reason` of a `turn failed` line. */
export function failureReason(err: unknown): string {
  if (err instanceof StageError) return "stage_failed";
  if (err instanceof NoAgentError) return "no_agent";
  if (err instanceof PoolWaitTimeoutError) return "pool_wait_timeout";
  return "turn_failed";
}

/**
 * What a turn run learns on the way that decides how its events count: a handler ran, triage
 * suppressed it, the handler skipped a redelivery (`note("duplicate")`), the agent ended in an
 * error shown to the user (`agent_error`), or the event answered a question (`answer`).
 */
export class TurnFacts {
  handled = false;
  suppressed = false;
  redelivery = false;
  agentError = false;
  answer = false;

  note(fact: TurnFact): void {
    if (fact === "duplicate") this.redelivery = true;
    else if (fact === "answer") this.answer = true;
    else this.agentError = true;
  }

  /** Once per settled turn: each of its `events` counts once, by what became of it, and a turn that ran (or failed to) counts as a turn. */
  count(instruments: Instruments, ok: boolean, repeated: boolean, events: number, durationMs: number): void {
    const fate = eventFate({ ok, repeated, redelivery: this.redelivery, handled: this.handled, suppressed: this.suppressed, answer: this.answer });
    instruments.events(fate, events);
    if (fate === "turn") instruments.turnSettled(turnOutcome(ok, this.agentError), durationMs / 1000);
  }
}
