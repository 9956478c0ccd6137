import { catchError, concatMap, EMPTY, Subject, type Subscription } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { statusReactions, type ReactionSignal, type StatusReactionsOptions } from "../../../operators/delivery/status/statusReactions.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Config } from "../../config/index.js";
import type { TurnContext } from "../turn.js";
import { reactionMessage } from "./reactionMessage.js";

/** `[reactions]` as the state machine takes it (without the clock); undefined when reactions are off. */
export type ReactionSettings = Omit<StatusReactionsOptions, "scheduler">;

export function reactionSettingsOf(reactions: Config["reactions"]): ReactionSettings | undefined {
  if (!reactions.enabled) return undefined;
  const { timing } = reactions;
  return {
    emojis: reactions.emojis,
    debounceMs: timing.debounce_ms,
    stallSoftMs: timing.stall_soft_ms,
    stallHardMs: timing.stall_hard_ms,
    doneHoldMs: timing.done_hold_ms,
    errorHoldMs: timing.error_hold_ms,
    removeAfterReply: reactions.remove_after_reply,
  };
}

const QUEUED: ReactionSignal = { type: "queued" };
const THINKING: ReactionSignal = { type: "thinking" };
const ACTIVITY: ReactionSignal = { type: "activity" };

/**
 * What an agent update says about the turn, as upstream reads it: a thought is thinking, a tool
 * call (or an update naming one) is that tool, a finished tool is thinking again; anything else
 * only shows the agent is alive (the stall timers restart). A tool update without a title keeps
 * the tool shown rather than turning it generic.
 */
export function reactionSignalOf(event: AgentEvent): ReactionSignal {
  switch (event.type) {
    case "thought":
    case "tool_done":
      return THINKING;
    case "tool_start":
      return { type: "tool", name: event.title };
    case "tool_update":
      return event.title === undefined || event.title === "" ? ACTIVITY : { type: "tool", name: event.title };
    default:
      return ACTIVITY;
  }
}

/**
 * 👀 on a batch's earlier arrivals, as upstream marks every message of a batch it dispatches (the
 * turn's own status reaction is on its last message). Each is sent once and left; one that fails
 * is logged and dropped.
 */
export function markQueued(events: readonly GatewayEvent[], context: TurnContext, settings: ReactionSettings | undefined): void {
  if (settings === undefined) return;
  const change = { op: "add", emoji: settings.emojis.queued } as const;
  for (const event of events) {
    if (event.message_id === "") continue;
    context.sendStatus(reactionMessage(event, change)).subscribe({
      error: (err: unknown) => context.logger.debug({ reason: "reaction_failed", op: change.op, err }, "status reaction not sent"),
    });
  }
}

/**
 * One turn's status reaction on the user's message: signals in, reaction commands out through
 * `context.sendStatus`, one after another (a change's add before its remove). A reaction that
 * fails is logged and dropped — never the turn's failure. Outlives the turn only for
 * `remove_after_reply`'s hold.
 */
export class TurnReactions {
  readonly #signals = new Subject<ReactionSignal>();
  readonly #running: Subscription | undefined;
  #agentFailed = false;

  constructor(event: GatewayEvent, context: TurnContext, settings: ReactionSettings | undefined) {
    // Nothing to react on: reactions off, or an event without a message (a scheduled one, say).
    if (settings === undefined || event.message_id === "") return;
    this.#running = this.#signals
      .pipe(
        statusReactions({ ...settings, scheduler: context.scheduler }),
        concatMap((change) =>
          context.sendStatus(reactionMessage(event, change)).pipe(
            catchError((err: unknown) => {
              context.logger.debug({ reason: "reaction_failed", op: change.op, err }, "status reaction not sent");
              return EMPTY;
            }),
          ),
        ),
      )
      .subscribe();
  }

  /** Dispatched: 👀 at once. */
  queued(): void {
    this.#signals.next(QUEUED);
  }

  /** The prompt went to the agent: 🤔, debounced. */
  thinking(): void {
    this.#signals.next(THINKING);
  }

  /** One of the agent's updates. */
  update(event: AgentEvent): void {
    if (this.#running !== undefined) this.#signals.next(reactionSignalOf(event));
  }

  /**
   * The agent's turn failed. The text path still delivers that as `⚠️ <error>` and completes, but
   * the reaction shows the failure, as upstream's does for a prompt that returned an error.
   */
  agentFailed(): void {
    this.#agentFailed = true;
  }

  /** The turn ended: 🆗 (with a face) or 😱; then only a `remove_after_reply` hold is left. */
  end(ok: boolean): void {
    this.#signals.next(ok && !this.#agentFailed ? { type: "done" } : { type: "error" });
    this.#signals.complete();
  }

  /** The turn was cancelled from outside (shutdown): nothing more is shown; a no-op after `end`. */
  abandon(): void {
    this.#signals.complete();
  }
}
