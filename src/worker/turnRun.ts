import { from, Subscription, type Observable, type Observer, type SchedulerLike, type Unsubscribable } from "rxjs";
import type { FileStore } from "../bus/files/fileStore.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import { triageLogLine } from "../../operators/triage/triageLog.js";
import type { TriageVerdict } from "../../operators/triage/triageVerdict.js";
import type { Bus, DurableMessage } from "../bus/bus.js";
import type { Logger } from "../log/logger.js";
import { levelsOf, type LevelsWritten } from "../log/levelsWritten.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import type { StageError } from "../pipeline/errors.js";
import type { Pipeline, StageObserver } from "../pipeline/pipeline.js";
import type { Send } from "../pipeline/send.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import type { SettledTurn, TurnTriage } from "../turn/turn.js";
import { AlreadyDeliveredError, NoAgentError } from "../turn/errors.js";
import type { TurnBatch, TurnContext, TurnFact, TurnHandler } from "../turn/turn.js";
import { triageLogMessage } from "../turn/triageLogMessages.js";
import { completeInLedger, ledgerKey } from "../turn/turnLedger.js";
import { AckedSends, classedSend, turnSender } from "./turnSender.js";
import { defersTurn, failureReason, TurnFacts } from "./turnSettlement.js";
import { turnBatchOf, turnEventOf, type TurnShape } from "./turnShape.js";
import { triageTurnEvent } from "./turnTriage.js";

export interface TurnRunOptions {
  readonly bus: Bus;
  readonly logger: Logger;
  readonly pipeline: Pipeline;
  readonly handler: TurnHandler | undefined;
  readonly send: Send;
  readonly messageLimit: (platform: string) => number;
  /** Absent: nothing is known of the gateway's capabilities (as in legacy mode). */
  readonly capabilities?: (platform: string) => PlatformCapabilities | undefined;
  /** Absent on the embedded bus. */
  readonly ledger?: DeliveryLedger;
  /** Judged on `triage.scheduler`'s clock (the bus's, as the worker passes it). */
  readonly triage?: TurnTriage & { readonly scheduler?: SchedulerLike };
  /** How long a turn that could not reach shared state waits before it is tried again (logged; the caller waits). */
  readonly retryInMs: number;
  readonly onSettled: (turn: SettledTurn) => void;
  /** What the turn counts (default: nothing). */
  readonly instruments?: Instruments;
  /** What `logger` writes, kept by the worker (absent: asked of the logger per turn). */
  readonly levels?: Pick<LevelsWritten, "debug" | "info" | "error">;
}

/** How a turn ended: its events settled (acked), or deferred — nothing settled, run it again later. */
export type TurnEnd = "settled" | "deferred";

/**
 * One turn on the worker, from `beforeDispatch` to the acks, driven by callbacks so an event costs
 * no stream of its own: the (collected) event runs through `beforeDispatch` (nothing is built for
 * an empty stage), each value it lets through is triaged when proactive and handed to the handler
 * (several at once when the stage fans out), and once the stage and every handler are done the
 * turn settles — the ledger says `complete` before the events are acked, so a redelivery after a
 * crash right there is not run again. Whatever the stage dropped or failed on settles the same
 * way, exactly once. A failed turn is settled and logged like a finished one; one that failed on
 * shared state before anything reached the user ends `deferred` and settles nothing (the caller
 * runs it again, still holding its events). `done` is called exactly once, unless the returned
 * subscription is unsubscribed first (the worker stopping), which cancels the running work.
 */
export function runTurn(
  messages: readonly DurableMessage<GatewayEvent>[],
  shape: TurnShape,
  options: TurnRunOptions,
  done: (end: TurnEnd) => void,
): Unsubscribable {
  const run = new TurnRun(messages, shape, options, done);
  run.start();
  return run;
}

/**
 * `runTurn`'s state, as one object: it is the stage's observer and the handler's context, with
 * prototype methods and getters rather than a dozen closures per turn (a turn is per event).
 */
class TurnRun implements TurnContext, StageObserver<GatewayEvent>, Unsubscribable {
  /** What runs of the turn: the stage's value, triage, handlers — what a failure cancels. Made when first needed: an instant turn needs none. */
  #work: Subscription | undefined;
  /** The ledger's `complete`, after the work (not cancelled by a failure, only by the caller). */
  #ledgerWrite: Unsubscribable | undefined;
  #cancelled = false;
  readonly #messages: readonly DurableMessage<GatewayEvent>[];
  readonly #shape: TurnShape;
  readonly #options: TurnRunOptions;
  readonly #done: (end: TurnEnd) => void;
  readonly #event: GatewayEvent;
  /** Under OpenAB batching; handed to the handler with the first value the stage lets through. */
  #batch: TurnBatch | undefined;
  readonly #key: string;
  /**
   * Whether anything reads the turn's times: real instruments, or a log line with `durationMs`
   * (`error` is the least verbose of those). Otherwise the clock is not read for them (a read
   * costs as much as the rest of an instant turn's bookkeeping).
   */
  readonly #timed: boolean;
  /** When the turn started (bus clock), read when `#timed` or batching; 0 otherwise. */
  readonly #startedAt: number;
  readonly #levels: Pick<LevelsWritten, "debug" | "info" | "error">;
  // Made only when a line is written or the handler asks: a pino child costs more than the rest of an instant turn.
  #child: Logger | undefined;
  #send: Send | undefined;
  #statusSend: Send | undefined;
  #keys: readonly string[] | undefined;
  #handlerObserver: Partial<Observer<unknown>> | undefined;
  /** Made with the turn's `send`: what of it the gateway acked. */
  #acked: AckedSends | undefined;
  /** What became of the turn's events, for the counts. */
  readonly #facts = new TurnFacts();
  #ended = false;
  #stageOpen = true;
  /** Values the stage let through whose triage or handler has not finished. */
  #running = 0;

  constructor(messages: readonly DurableMessage<GatewayEvent>[], shape: TurnShape, options: TurnRunOptions, done: (end: TurnEnd) => void) {
    this.#messages = messages;
    this.#shape = shape;
    this.#options = options;
    this.#done = done;
    this.#levels = options.levels ?? levelsOf(options.logger);
    this.#timed = (options.instruments !== undefined && options.instruments !== noInstruments) || this.#levels.error;
    this.#startedAt = this.#timed || shape.batch !== undefined ? options.bus.scheduler.now() : 0;
    this.#event = turnEventOf(messages, shape);
    this.#batch = turnBatchOf(messages, shape, this.#startedAt);
    this.#key = sessionKey(this.#event);
  }

  /** Cancels what still runs (the worker stopping); `done` is not called after this. */
  unsubscribe(): void {
    this.#cancelled = true;
    this.#ended = true;
    this.#work?.unsubscribe();
    this.#ledgerWrite?.unsubscribe();
  }

  /** Keeps a subscription to cancel with the work, unless it is already over. */
  #keep(subscription: Unsubscribable | undefined): void {
    if (subscription === undefined || (subscription instanceof Subscription && subscription.closed)) return;
    if (this.#ended) {
      subscription.unsubscribe();
      return;
    }
    (this.#work ??= new Subscription()).add(subscription);
  }

  // TurnContext, for the handler.
  get scheduler(): SchedulerLike {
    return this.#options.bus.scheduler;
  }

  get logger(): Logger {
    return (this.#child ??= this.#options.logger.child({ sessionKey: this.#key, event_id: this.#event.event_id }));
  }

  get messageLimit(): (platform: string) => number {
    return this.#options.messageLimit;
  }

  get capabilities(): ((platform: string) => PlatformCapabilities | undefined) | undefined {
    return this.#options.capabilities;
  }

  get send(): Send {
    return (this.#send ??= this.#sender());
  }

  get files(): FileStore {
    return this.#options.bus.files;
  }

  get sendStatus(): Send {
    return (this.#statusSend ??= classedSend(this.#options.send, this.#event));
  }

  note(fact: TurnFact): void {
    this.#facts.note(fact);
  }

  start(): void {
    this.#keep(this.#options.pipeline.runValue("beforeDispatch", this.#event, this));
  }

  // StageObserver: what `beforeDispatch` made of the turn's event.
  next(event: GatewayEvent): void {
    if (this.#ended) return;
    this.#running += 1;
    const { triage } = this.#options;
    if (triage === undefined || event.proactive !== true) {
      this.#handle(event);
      return;
    }
    this.#keep(triageTurnEvent(event, triage, (verdict) => this.#triaged(event, verdict), (err) => this.#end(false, err)));
  }

  error(err: StageError): void {
    this.#end(false, err);
  }

  complete(): void {
    this.#stageOpen = false;
    this.#endIfIdle();
  }

  /** The handler's `send`: classed for rate limits, counted as the gateway acks it, kept in the ledger when there is one. */
  #sender(): Send {
    const { send, ledger, bus, messageLimit, instruments = noInstruments } = this.#options;
    const acked = (this.#acked = new AckedSends(instruments, bus.scheduler, this.#shape.receivedAt ?? this.#startedAt));
    const kept = ledger === undefined ? undefined : { ledger, keys: this.#ledgerKeys(), marked: this.#shape.marked, now: () => bus.scheduler.now(), messageLimit, logger: this.logger };
    return turnSender(classedSend(send, this.#event), acked, kept);
  }

  /** The turn's events' ledger keys, spelled once for its sends and its `complete`. */
  #ledgerKeys(): readonly string[] {
    return (this.#keys ??= this.#messages.map((message) => ledgerKey(message.data)));
  }

  #triaged(event: GatewayEvent, verdict: TriageVerdict): void {
    // Checked first: the line's fields and the turn's child logger are more work than an instant turn.
    if (this.#levels.info) {
      const fields = triageLogLine({ event, verdict });
      if (fields !== undefined) this.logger.info(fields, triageLogMessage(fields));
    }
    if (verdict.decision === "wake") {
      this.#options.instruments?.triageDecision("wake", "none");
      this.#handle(event);
      return;
    }
    this.#options.instruments?.triageDecision("suppressed", verdict.reason);
    this.#facts.suppressed = true;
    this.#finished();
  }

  #handle(event: GatewayEvent): void {
    const { handler } = this.#options;
    if (handler === undefined) {
      this.#end(false, new NoAgentError());
      return;
    }
    if (this.#levels.debug) this.logger.debug({ deliveryCount: this.#messages[0]?.deliveryCount, collected: this.#messages.length }, "turn started");
    let result: Observable<unknown>;
    this.#facts.handled = true;
    const batch = this.#batch;
    this.#batch = undefined;
    try {
      const key = event === this.#event ? this.#key : sessionKey(event);
      result = from(handler(batch === undefined ? { sessionKey: key, event } : { sessionKey: key, event, batch }, this));
    } catch (err) {
      this.#end(false, err);
      return;
    }
    this.#handlerObserver ??= { error: (err: unknown) => this.#end(false, err), complete: () => this.#finished() };
    this.#keep(result.subscribe(this.#handlerObserver));
  }

  #finished(): void {
    this.#running -= 1;
    this.#endIfIdle();
  }

  #endIfIdle(): void {
    if (!this.#stageOpen && this.#running === 0) this.#end(true);
  }

  #end(ok: boolean, err?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#work?.unsubscribe(); // a failure cancels the turn's other work (a fanned-out value's handler)
    const { ledger, retryInMs } = this.#options;
    if (defersTurn(ok, this.#acked?.count ?? 0, err)) {
      this.logger.warn({ reason: "state_unavailable", retryInMs, err }, "turn deferred");
      this.#done("deferred");
      return;
    }
    if (ledger === undefined) {
      this.#settle(ok, err);
      return;
    }
    const write = completeInLedger(this.#ledgerKeys(), { ledger, now: this.scheduler.now(), logger: () => this.logger }).subscribe({ complete: () => this.#settle(ok, err) });
    if (!write.closed) this.#ledgerWrite = write;
  }

  #settle(ok: boolean, err?: unknown): void {
    if (this.#cancelled) return;
    for (const message of this.#messages) message.ack();
    // Answered by an earlier delivery of the same event (re-sent after the duplicate window): settled, not failed.
    const repeated = err instanceof AlreadyDeliveredError;
    const { event_id } = this.#event;
    this.#options.onSettled({ sessionKey: this.#key, event_id, ok: ok || repeated });
    const durationMs = this.#timed ? this.scheduler.now() - this.#startedAt : 0;
    this.#facts.count(this.#options.instruments ?? noInstruments, ok, repeated, this.#messages.length, durationMs);
    if (ok && this.#facts.answer) {
      // No turn ran: the question desk logged what the answer did.
      if (this.#levels.debug) this.#options.logger.debug({ sessionKey: this.#key, event_id, durationMs }, "answer settled");
    } else if (ok) {
      // Its fields are built only when the line is written: it is the one line of every turn.
      if (this.#levels.info) this.#options.logger.info({ sessionKey: this.#key, event_id, durationMs }, "turn complete");
    } else if (repeated) this.logger.info({ reason: "already_delivered", deliveryCount: this.#messages[0]?.deliveryCount, durationMs }, "completed turn not repeated");
    else this.logger.error({ reason: failureReason(err), err, durationMs }, "turn failed");
    this.#done("settled");
  }
}
