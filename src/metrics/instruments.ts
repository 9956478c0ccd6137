import { SEND_KINDS, type SendKind } from "../../operators/delivery/flow/sendKind.js";

/**
 * What the broker tells its instruments, as it happens: the port between the pipeline and
 * Prometheus (`BrokerMetrics`). Every label is drawn from a closed set spelled here, never from a
 * session key, user, channel or a string the gateway or the agent chose, so a series count is
 * bounded whatever traffic arrives. The broker calls these on its hot path: an implementation
 * does a few additions and never allocates per call.
 */
export interface Instruments {
  /** `count` events came to `outcome` (once per event, where its fate was decided). */
  events(outcome: EventOutcome, count?: number): void;
  /** Triage judged one proactive event. */
  triageDecision(decision: TriageDecisionLabel, reason: TriageReasonLabel): void;
  /** A turn settled after `seconds` (bus clock), in the process's delivery mode. */
  turnSettled(outcome: TurnOutcome, seconds: number): void;
  /** A turn's first message was acked `seconds` after the oldest of its events reached the worker. */
  firstMessage(seconds: number): void;
  /** The gateway acked a send of `kind`, `ackSeconds` after it was asked for. */
  messageSent(kind: MessageKind, ackSeconds: number): void;
  /** A send failed; `code` is `SendError.code` (mapped onto a closed set, see `sendFailureReason`). */
  sendFailed(code: string): void;
  /** The gateway refused a send for now (a rate limit) and it will be asked again. */
  sendRetried(): void;
  /** The gap between two consecutive new messages of one turn (ack to ack). */
  bubbleGap(seconds: number): void;
  /** A send waited `seconds` for a rate limit's token (`[rate_limits]`), the last wait for `bucket`'s. */
  sendShaped(bucket: ShapingBucket, seconds: number): void;
  /** An agent process ended. */
  agentExited(cause: AgentExitCause): void;
  /** A redelivered event whose earlier attempt was interrupted runs again (the delivery ledger's recovery). */
  turnRecovered(): void;
  /** Events waiting behind a busy session changed by `delta`. */
  queued(delta: number): void;
}

/** Where an event ended up: each event counts once, in the process that decided it. */
export const EVENT_OUTCOMES = ["turn", "answer", "skipped", "untrusted", "duplicate", "suppressed", "debounced", "dropped", "invalid"] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/**
 * `completed`; `agent_error`, the agent ended the turn in an error the user was shown (`⚠️ …`,
 * the turn itself completes, as upstream); `failed`, the turn failed (a send, a stage, the broker
 * side, no free session) and is logged `turn failed`.
 */
export const TURN_OUTCOMES = ["completed", "agent_error", "failed"] as const;
export type TurnOutcome = (typeof TURN_OUTCOMES)[number];

/** Every `kind` label: the kinds of send rate limits count too. */
export const MESSAGE_KINDS = SEND_KINDS;
export type MessageKind = SendKind;

/** Which bucket a send that waited for a rate limit waited for last: its conversation's (or group's), or the bot's. */
export const SHAPING_BUCKETS = ["conversation", "bot"] as const;
export type ShapingBucket = (typeof SHAPING_BUCKETS)[number];

export const TRIAGE_DECISIONS = ["wake", "suppressed"] as const;
export type TriageDecisionLabel = (typeof TRIAGE_DECISIONS)[number];

/** `none` for a wake, which has no reason. */
export const TRIAGE_REASONS = ["none", "duplicate", "quiet_hours", "cooldown", "daily_cap"] as const;
export type TriageReasonLabel = (typeof TRIAGE_REASONS)[number];

/**
 * How an agent process ended: `stopped` by turnstream (a suspended, reset or evicted session, a
 * shutdown), `exited` on its own with code 0, `failed` on its own with another code, `signal`
 * killed by a signal turnstream did not send.
 */
export const AGENT_EXIT_CAUSES = ["stopped", "exited", "failed", "signal"] as const;
export type AgentExitCause = (typeof AGENT_EXIT_CAUSES)[number];

/** Instruments that record nothing: the default when `[metrics]` is off. */
export const noInstruments: Instruments = Object.freeze({
  events: () => undefined,
  triageDecision: () => undefined,
  turnSettled: () => undefined,
  firstMessage: () => undefined,
  messageSent: () => undefined,
  sendFailed: () => undefined,
  sendRetried: () => undefined,
  bubbleGap: () => undefined,
  sendShaped: () => undefined,
  agentExited: () => undefined,
  turnRecovered: () => undefined,
  queued: () => undefined,
});
