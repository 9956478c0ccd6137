import type { Observer, Subscription, Unsubscribable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { PAYLOAD_TOO_LARGE_STATUS, setAsideInlineData } from "../../operators/ingress/frames/oversizeEvent.js";
import type { Bus, PersistAck } from "../bus/bus.js";
import { PayloadTooLargeError } from "../bus/errors.js";
import type { Logger } from "../log/logger.js";
import { subjectToken } from "../wire/index.js";

/** Everything about queueing but the event: the same for every event of a partition, so built once per partition. */
export interface QueueEventOptions {
  readonly bus: Bus;
  /** The event's partition subject (`subjects.turn(partition)`). */
  readonly subject: string;
  readonly logger: Logger;
  /** How long to keep retrying an append that failed (the bus between servers). */
  readonly retryForMs: number;
  /** Retrying stops once this says false (the broker is stopping). */
  readonly stillRunning: () => boolean;
}

/**
 * The turn stream's message id of an event: `platform:event_id`, each part as `subjectToken`
 * spells it — a header value holds no CR/LF, and `:` inside a part cannot make two events one.
 * Plain ids (`telegram:12345`) read as they are. Every edge must agree on it: it collapses the
 * copies the gateway broadcasts to each.
 */
export function turnMsgId(event: Pick<GatewayEvent, "platform" | "event_id">): string {
  return `${subjectToken(event.platform)}:${subjectToken(event.event_id)}`;
}

/** How an append ended: acked (perhaps as a duplicate), or given up after retrying for `retryForMs`. */
export type QueueOutcome = { readonly ok: true; readonly ack: PersistAck } | { readonly ok: false; readonly err: unknown };

/** Logged when an event goes on without its attachments' inline bytes, too big for the bus with them. */
export const EVENT_OVER_MAX_PAYLOAD_LOG = "event over the NATS server's max_payload; its inline attachments not delivered";

/**
 * Appends an event to the turn stream with message id `turnMsgId(event)`, retrying for a while
 * when the bus is unreachable — a retry of an append that did land is a duplicate, so an event is
 * never queued twice — and logs a collapsed duplicate (several edges, or a gateway's retry). An
 * event too big for the bus (`PayloadTooLargeError`: NATS's `max_payload`) is never retried as it
 * is: it goes at once without its attachments' inline bytes (each the agent's "not delivered"
 * note), or, with none to set aside or still too big, is refused at once.
 * Reports to `done` exactly once, synchronously when the bus answers at once (the embedded bus),
 * unless the returned handle is unsubscribed first. Callbacks rather than a stream: this runs for
 * every event the edge queues.
 */
export function queueEvent(event: GatewayEvent, options: QueueEventOptions, done: (outcome: QueueOutcome) => void): Unsubscribable {
  const append = new EventAppend(event, options, done);
  append.attempt();
  return append;
}

/**
 * One event's append, its own observer across attempts: one object per event instead of a
 * closure per callback and a subscription to hold them.
 */
class EventAppend implements Observer<PersistAck>, Unsubscribable {
  /** The event as it is appended: once too big for the bus, without its attachments' inline bytes. */
  #event: GatewayEvent;
  #setAside = false;
  readonly #options: QueueEventOptions;
  readonly #done: (outcome: QueueOutcome) => void;
  /**
   * When the first attempt was made, on the bus clock. Read before an append that answers later;
   * for one answered within the call (the embedded bus), at its first failure, which is the same
   * moment: an append that succeeds at once never reads the clock.
   */
  #firstTry: number | undefined;
  #attempts = 0;
  #acked = false;
  #over = false;
  #persisting: Subscription | undefined;
  #retry: Subscription | undefined;

  constructor(event: GatewayEvent, options: QueueEventOptions, done: (outcome: QueueOutcome) => void) {
    this.#event = event;
    this.#options = options;
    this.#done = done;
  }

  attempt(): void {
    this.#attempts += 1;
    this.#acked = false;
    this.#retry = undefined;
    const { bus, subject } = this.#options;
    const options = { msgId: turnMsgId(this.#event) };
    if (bus.persistNow === undefined) {
      this.#firstTry ??= bus.scheduler.now();
      this.#persisting = bus.persist(subject, this.#event, options).subscribe(this);
      return;
    }
    // A bus that stores within the call: the same outcome as `persist`, without a stream.
    let ack: PersistAck;
    try {
      ack = bus.persistNow(subject, this.#event, options);
    } catch (err) {
      this.error(err);
      return;
    }
    this.next(ack);
  }

  next(ack: PersistAck): void {
    if (this.#over) return;
    this.#acked = true;
    if (ack.duplicate) {
      const event = this.#event;
      this.#options.logger.info({ decision: "suppressed", reason: "duplicate", platform: event.platform, event_id: event.event_id }, "duplicate event collapsed");
    }
    this.#end({ ok: true, ack });
  }

  error(err: unknown): void {
    const { bus, logger, retryForMs, stillRunning } = this.#options;
    if (this.#over) return;
    if (err instanceof PayloadTooLargeError) {
      this.#tooLarge(err);
      return;
    }
    const now = bus.scheduler.now();
    this.#firstTry ??= now;
    if (now - this.#firstTry > retryForMs || !stillRunning()) {
      this.#end({ ok: false, err });
      return;
    }
    const n = this.#attempts;
    const delayMs = Math.min(250 * 2 ** (n - 1), 5_000);
    logger.warn({ reason: "queue_retry", event_id: this.#event.event_id, attempt: n, delayMs, err }, "queueing an event failed; retrying");
    this.#retry = bus.scheduler.schedule(() => this.attempt(), delayMs);
  }

  // A bus must ack or fail an append; one that did neither must not hold the conversation's appends forever.
  complete(): void {
    if (!this.#acked) this.#end({ ok: false, err: new Error(`the bus completed an append to ${this.#options.subject} without an ack`) });
  }

  /**
   * Asking again cannot make the event fit: it goes once more without its attachments' inline
   * bytes (the same message id, so every edge's copy still collapses into one), or is refused now.
   */
  #tooLarge(err: PayloadTooLargeError): void {
    const kept = this.#setAside ? undefined : setAsideInlineData(this.#event, PAYLOAD_TOO_LARGE_STATUS);
    if (kept === undefined || kept.attachments === 0) {
      this.#end({ ok: false, err });
      return;
    }
    this.#event = kept.event;
    this.#setAside = true;
    this.#options.logger.warn(
      { reason: "payload_too_large", event_id: kept.event.event_id, bytes: err.bytes, maxPayloadBytes: err.maxPayloadBytes, attachments: kept.attachments },
      EVENT_OVER_MAX_PAYLOAD_LOG,
    );
    this.attempt();
  }

  /** Cancels the append: no retry, and no outcome reported after this. */
  unsubscribe(): void {
    this.#over = true;
    this.#persisting?.unsubscribe();
    this.#retry?.unsubscribe();
  }

  #end(outcome: QueueOutcome): void {
    if (this.#over) return;
    this.#over = true;
    this.#done(outcome);
  }
}
