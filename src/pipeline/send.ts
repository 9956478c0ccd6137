import { randomUUID } from "node:crypto";
import { concatMap, Observable, retry, Subscription, throwError, timer, type MonoTypeOperatorFunction, type Subscriber } from "rxjs";
import type { Bus } from "../bus/bus.js";
import { BusTimeoutError, NoRespondersError, PayloadTooLargeError } from "../bus/errors.js";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import { SEND_ID_HEADER, SendError, SKIPPED_MESSAGE_ID, sendReplySchema, type Subjects } from "../wire/index.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import { messageKind } from "../metrics/metricLabels.js";
import type { SendClass } from "../../operators/delivery/flow/sendClass.js";
import type { SendShaper } from "../../operators/delivery/flow/sendShaper.js";
import type { Pipeline } from "./pipeline.js";

/**
 * How long a send with a file waits for the edge's answer at least: the edge reads the file from
 * the bus's file store and uploads it (a native adapter allows an upload a minute), far longer
 * than a text's ack may take.
 */
export const FILE_SEND_TIMEOUT_MS = 120_000;

export interface SenderOptions {
  readonly bus: Bus;
  readonly subjects: Subjects;
  readonly pipeline: Pipeline;
  /** How long to wait for the edge's answer; longer than the gateway ack timeout it waits for. */
  readonly timeoutMs: number;
  /**
   * Asks again this many times when no edge answered (nobody listening, or the answer was lost —
   * a bus between servers). Each request carries a `Turnstream-Send-Id` header, so the edge that
   * posted the first one answers a retry from its record instead of posting twice. Default 0.
   */
  readonly retries?: number;
  /** Counts each send by kind with its ack latency, each failure by reason, each wait the gateway asked for (default: nothing). */
  readonly instruments?: Instruments;
  /**
   * How long, from its first ask, a message may keep waiting out the gateway's "try again later"
   * (`rejected` with `retry_after_ms`, or `rate_limited`) before the send fails. Default 0: never
   * sent again. The broker gives it the turn's hard timeout (`[pool] prompt_hard_timeout_secs`).
   */
  readonly retryBudgetMs?: number;
  /** Told each time a refused message will be asked again, after `waitMs` (the broker logs it). */
  readonly onRetry?: (retry: SendRetry) => void;
  /**
   * Told as each attempt of a message leaves for the gateway — after its rate-limit wait, when its
   * limits were met — with the attempt's number from 1 (the broker logs it at debug).
   */
  readonly onAttempt?: (message: OutboundMessage, attempt: number) => void;
  /**
   * Holds each message (after `beforeSend`) until its platform's rate limits let it go
   * (`[rate_limits]`), and learns from the gateway's "try again later". Absent: none.
   */
  readonly shaper?: SendShaper;
}

/** What the caller says about one send. */
export interface SendOptions {
  /** What the message is, for its rate limits (default: a reply to a person, not in a group). */
  readonly sendClass?: SendClass;
  /**
   * Called each time the message leaves for the gateway: after any rate-limit wait, and again for
   * each attempt after a "try again later". Bubble pacing counts the next gap from the last call.
   */
  readonly departing?: () => void;
  /**
   * The message will be edited in place (a streaming reply's placeholder): the delivery ledger
   * records its id, so a re-run after the turn's worker died deletes it instead of leaving it stale.
   */
  readonly placeholder?: boolean;
  /**
   * The message asks the person in the chat a question (issue 41): the delivery ledger records its
   * id, so a re-run after the turn's worker died marks it expired instead of leaving it open.
   */
  readonly question?: boolean;
}

/** A message the gateway refused for now, about to be asked again. */
export interface SendRetry {
  readonly message: OutboundMessage;
  readonly error: SendError;
  readonly waitMs: number;
  /** Attempts so far, the refused one included. */
  readonly attempt: number;
}

/** Sends one message: emits its receipt, or nothing when a `beforeSend` operator dropped it. */
export type Send = (message: OutboundMessage, options?: SendOptions) => Observable<SendReceipt>;

const A_PERSON: SendClass = { group: false, human: true };

/**
 * A send runs the `beforeSend` stage, then holds each resulting message for its rate limits (when
 * a shaper is given) and asks whichever edge serves the platform to post it, one after another;
 * it fails with `SendError` when any is not posted.
 */
export function createSender(options: SenderOptions): Send {
  const { bus, pipeline, retries = 0, shaper } = options;
  const retried = retry<unknown>({
    count: retries,
    delay: (err: unknown, attempt: number) =>
      err instanceof NoRespondersError || err instanceof BusTimeoutError ? timer(1_000 * attempt, bus.scheduler) : throwError(() => err),
  });
  // Hand-written: one Observable per message on the bubble path, where defer + map + catchError
  // were three and their subscribers. Cold like them: each subscription asks afresh. A shaper holds
  // the message inside it (no stream of its own); its attempts are made once it may go.
  const sendOne = (message: OutboundMessage, sendOptions: SendOptions | undefined): Observable<SendReceipt> =>
    new Observable<SendReceipt>((subscriber) => {
      const departing = sendOptions?.departing;
      if (shaper === undefined) return new MessageSend(message, options, retried, subscriber, departing).start();
      let work: Subscription | undefined;
      const cancel = shaper.hold(message, sendOptions?.sendClass ?? A_PERSON, () => {
        work = new MessageSend(message, options, retried, subscriber, departing).start();
      });
      return () => {
        cancel();
        work?.unsubscribe();
      };
    });
  // An empty beforeSend stage (the usual case) builds no stream around the message.
  return (message, sendOptions) =>
    pipeline.isEmpty("beforeSend") ? sendOne(message, sendOptions) : pipeline.run("beforeSend", message).pipe(concatMap((staged) => sendOne(staged, sendOptions)));
}

/**
 * One message's send, across its attempts. Each attempt asks with a fresh send id (its own bus
 * retries keep that id, so an edge answers a lost answer's retry from its record). A refusal that
 * says when to try again (`SendError.retryAfterMs`: the gateway's rate limit) is waited out and
 * the same message asked again, while `retryBudgetMs` lasts; the caller's stream waits with it, so
 * what follows the message still follows it.
 */
class MessageSend {
  readonly #message: OutboundMessage;
  readonly #options: SenderOptions;
  readonly #retried: MonoTypeOperatorFunction<unknown>;
  readonly #subscriber: Subscriber<SendReceipt>;
  readonly #work = new Subscription();
  readonly #departing: (() => void) | undefined;
  readonly #firstAsked: number;
  #attempts = 0;

  constructor(message: OutboundMessage, options: SenderOptions, retried: MonoTypeOperatorFunction<unknown>, subscriber: Subscriber<SendReceipt>, departing: (() => void) | undefined) {
    this.#message = message;
    this.#options = options;
    this.#retried = retried;
    this.#subscriber = subscriber;
    this.#departing = departing;
    this.#firstAsked = options.bus.scheduler.now();
  }

  start(): Subscription {
    this.#attempt();
    return this.#work;
  }

  #attempt(): void {
    this.#attempts += 1;
    this.#departing?.();
    this.#options.onAttempt?.(this.#message, this.#attempts);
    const { bus, subjects, timeoutMs } = this.#options;
    const headers = { [SEND_ID_HEADER]: randomUUID() };
    let over = false;
    const attempt = bus
      .request<OutboundMessage, unknown>(subjects.send(this.#message.platform), this.#message, { timeoutMs: this.#message.attachment === undefined ? timeoutMs : Math.max(timeoutMs, FILE_SEND_TIMEOUT_MS), headers })
      .pipe(this.#retried)
      .subscribe({
        next: (raw) => {
          over = true;
          let receipt: SendReceipt;
          try {
            receipt = receiptOf(raw);
          } catch (err) {
            this.#failed(err);
            return;
          }
          this.#sent(receipt);
        },
        error: (err: unknown) => {
          over = true;
          this.#failed(asSendError(err, this.#message.platform));
        },
        // No answer at all: nothing was sent, and nothing follows.
        complete: () => {
          if (!over) this.#subscriber.complete();
        },
      });
    this.#work.add(attempt);
  }

  #sent(receipt: SendReceipt): void {
    const { instruments = noInstruments, bus } = this.#options;
    // A reaction the platform cannot show was not posted: nothing to count.
    if (receipt.messageId !== SKIPPED_MESSAGE_ID) instruments.messageSent(messageKind(this.#message.command), (bus.scheduler.now() - this.#firstAsked) / 1000);
    this.#subscriber.next(receipt);
    this.#subscriber.complete();
  }

  #failed(err: unknown): void {
    const { instruments = noInstruments, bus, retryBudgetMs = 0 } = this.#options;
    const waitMs = err instanceof SendError ? err.retryAfterMs : undefined;
    if (waitMs !== undefined && bus.scheduler.now() + waitMs - this.#firstAsked <= retryBudgetMs) {
      instruments.sendRetried();
      this.#options.onRetry?.({ message: this.#message, error: err as SendError, waitMs, attempt: this.#attempts });
      // The platform counted more than the buckets knew: the conversation waits too, this message's retry its first send.
      this.#options.shaper?.refused(this.#message, waitMs);
      this.#work.add(bus.scheduler.schedule(() => this.#attempt(), waitMs));
      return;
    }
    instruments.sendFailed(err instanceof SendError ? err.code : "send_failed");
    this.#subscriber.error(err);
  }
}

/** The edge's answer as a receipt; throws `SendError` for a refusal or an answer that is not a send reply. */
function receiptOf(raw: unknown): SendReceipt {
  const reply = sendReplySchema.safeParse(raw);
  if (!reply.success) throw new SendError("bad_reply", "the edge answered a send with a malformed reply");
  // An edge relays the gateway's words; bounded again here (a no-op for a current edge) since the bus is a boundary too.
  if (!reply.data.ok) {
    const { retryAfterMs } = reply.data;
    throw new SendError(untrustedText(reply.data.code, { maxChars: 64 }), untrustedText(reply.data.error, { maxChars: 1_000 }), retryAfterMs === undefined ? undefined : { retryAfterMs });
  }
  return { messageId: reply.data.messageId };
}

function asSendError(err: unknown, platform: string): unknown {
  if (err instanceof NoRespondersError) {
    return new SendError("no_gateway", `no gateway connection serves platform ${platform}`, { cause: err });
  }
  if (err instanceof BusTimeoutError) {
    return new SendError("timeout", `no answer from the edge for platform ${platform}`, { cause: err });
  }
  // Never asked again: the same message cannot fit.
  if (err instanceof PayloadTooLargeError) {
    return new SendError("too_large", `the message is too large to reach an edge (${err.bytes} bytes, the NATS server's max_payload is ${err.maxPayloadBytes})`, { cause: err });
  }
  return err;
}
