import { AsyncSubject, catchError, concat, defer, EMPTY, finalize, ignoreElements, Subject, tap, throwError, type MonoTypeOperatorFunction, type Observable, type OperatorFunction, type Subscription } from "rxjs";
import { activityMessage, type ActivityOptions, type ActivityStep } from "../../../operators/delivery/status/activityMessage.js";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { concatLatest } from "../../../operators/delivery/status/concatLatest.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TurnContext } from "../turn.js";
import { messageChange, namesMessage } from "./messageChange.js";
import { replyMessage } from "./replyMessage.js";

/** `[activity]` as a turn needs it: how tools show, where paths shorten, and the masking of secrets. */
export type ActivitySettings = Pick<ActivityOptions, "toolDisplay" | "places" | "redact">;

/**
 * One turn's tool-activity message (`activityMessage`): posted when the first tool starts, edited
 * as tools start and finish, and — once the answer has been delivered (`finish`) — deleted, or
 * edited to a one-line summary where the platform cannot delete. It is transient, so it goes
 * through `sendStatus`: never in the delivery ledger, never the turn's "first message", and a
 * failure of it is logged and never the turn's.
 */
export class TurnActivity {
  readonly #event: GatewayEvent;
  readonly #context: TurnContext;
  readonly #events = new Subject<AgentEvent>();
  readonly #done = new AsyncSubject<void>();
  readonly #running: Subscription;
  #messageId: string | undefined;
  #broken = false;
  #finishing = false;

  constructor(event: GatewayEvent, context: TurnContext, settings: ActivitySettings) {
    this.#event = event;
    this.#context = context;
    const options: ActivityOptions = { ...settings, limit: context.messageLimit(event.platform), scheduler: context.scheduler };
    this.#running = this.#events
      .pipe(
        activityMessage(options),
        concatLatest((step) => this.#apply(step), (step) => step.kind === "edit"),
      )
      .subscribe({ complete: () => (this.#done.next(), this.#done.complete()) });
  }

  /** Feeds the turn's events to the activity message, passing them on unchanged. The turn's end is `finish`, not the events'. */
  watch(): MonoTypeOperatorFunction<AgentEvent> {
    return tap({ next: (event) => this.#events.next(event) });
  }

  /** The answer was delivered (or the turn failed): close the message once its pending edits are out. */
  finish(): Observable<never> {
    return defer(() => {
      if (!this.#finishing) {
        this.#finishing = true;
        this.#events.complete();
      }
      return this.#done.pipe(ignoreElements());
    });
  }

  /** The turn was cancelled from outside: nothing more is sent. */
  dispose(): void {
    this.#running.unsubscribe();
  }

  #apply(step: ActivityStep): Observable<unknown> {
    switch (step.kind) {
      case "open":
        return this.#send(replyMessage(this.#event, step.text, undefined), "activity_open_failed", () => (this.#broken = true)).pipe(
          tap((receipt) => {
            if (namesMessage(receipt.messageId)) this.#messageId = receipt.messageId;
            else this.#broken = true;
          }),
        );
      case "edit":
        return this.#messageId === undefined || this.#broken ? EMPTY : this.#change(step.text, "activity_edit_failed");
      case "close":
        return this.#close(step.summary);
    }
  }

  /** Deleted where the platform can delete; else edited to its summary where it can edit; else left. */
  #close(summary: string): Observable<unknown> {
    if (this.#messageId === undefined) {
      if (this.#broken) this.#context.logger.warn({ reason: "activity_no_message_id" }, "activity message has no id and stays");
      return EMPTY;
    }
    const capabilities = this.#context.capabilities?.(this.#event.platform);
    if (capabilities !== undefined && !capabilities.canDelete) return capabilities.canEdit ? this.#change(summary, "activity_summary_failed") : EMPTY;
    let deleted = true;
    return concat(
      this.#send(messageChange(this.#event, this.#messageId, undefined), "activity_delete_failed", () => (deleted = false)),
      defer(() => (deleted ? EMPTY : this.#change(summary, "activity_summary_failed"))),
    );
  }

  #change(text: string, reason: string): Observable<unknown> {
    return this.#send(messageChange(this.#event, this.#messageId as string, text), reason, () => (this.#broken = true));
  }

  /** A status send: a failure is logged under `reason` and swallowed. */
  #send(message: OutboundMessage, reason: string, onFailure?: () => void): Observable<SendReceipt> {
    return this.#context.sendStatus(message).pipe(
      catchError((err: unknown) => {
        onFailure?.();
        this.#context.logger.debug({ reason, err }, "activity message not updated");
        return EMPTY;
      }),
    );
  }
}

/**
 * Whether a turn gets the activity message: never a proactive one (one that ends silent must
 * leave no trace in the chat), nor where the gateway's hello says a message can be neither edited
 * nor deleted (it would stay, stale, above the answer).
 */
export function showsActivity(event: GatewayEvent, context: TurnContext): boolean {
  if (event.proactive === true) return false;
  const capabilities = context.capabilities?.(event.platform);
  return capabilities === undefined || capabilities.canEdit || capabilities.canDelete;
}

/** Closes the activity message once the answer is delivered, or the turn failed; drops it when the turn is cancelled. */
export function closedAfter(activity: TurnActivity): OperatorFunction<never, never> {
  return (turn) =>
    concat(
      turn.pipe(catchError((err: unknown) => concat(activity.finish(), throwError(() => err)))),
      activity.finish(),
    ).pipe(finalize(() => activity.dispose()));
}
