import type { JsMsg } from "@nats-io/jetstream";
import type { DurableMessage, Headers } from "../bus.js";
import { MSG_ID_HEADER, fromMsgHdrs } from "./natsCodec.js";

/** What the consumer learns about one of its deliveries. */
export interface DeliveryEvents {
  /** The message is no longer held (first `ack()`, `nak()` or `handBack()`). */
  settled(message: NatsDurableMessage<unknown>): void;
  /** An ack, nak or keep-alive could not be sent (the connection is closed): the server redelivers after its ack wait. */
  failed(action: "ack" | "nak" | "working", message: NatsDurableMessage<unknown>, err: unknown): void;
}

/**
 * One JetStream delivery as a `consume()` subscriber sees it. It is held from delivery until the
 * first `ack()`, `nak()` or `handBack()` (which skips a claimed one); later calls do nothing (the client sends one final reply
 * per delivery, so an ack after a nak or a hand-back is not sent either). Never throws: a reply the
 * closed connection cannot carry is reported to `events.failed`.
 */
export class NatsDurableMessage<T> implements DurableMessage<T> {
  readonly subject: string;
  readonly seq: number;
  readonly deliveryCount: number;
  // Private fields stay out of logs and JSON.
  readonly #msg: JsMsg;
  readonly #events: DeliveryEvents;
  #held = true;
  #claimed = false;
  /** Decoded on first read: the worker reads neither, and the header block is every delivery's largest parse. */
  #headers: Headers | undefined;
  #msgId: string | null | undefined;

  constructor(
    msg: JsMsg,
    readonly data: T,
    events: DeliveryEvents,
  ) {
    this.#msg = msg;
    this.#events = events;
    this.subject = msg.subject;
    const { info } = msg;
    this.seq = info.streamSequence;
    this.deliveryCount = info.deliveryCount;
  }

  get headers(): Headers {
    return (this.#headers ??= fromMsgHdrs(this.#msg.headers, MSG_ID_HEADER));
  }

  get msgId(): string | undefined {
    if (this.#msgId === undefined) {
      const msgId = this.#msg.headers?.get(MSG_ID_HEADER);
      this.#msgId = msgId === undefined || msgId === "" ? null : msgId;
    }
    return this.#msgId ?? undefined;
  }

  ack(): void {
    if (this.#settle()) this.#send("ack", () => this.#msg.ack());
  }

  nak(delayMs?: number): void {
    if (this.#settle()) this.#send("nak", () => (delayMs === undefined || delayMs <= 0 ? this.#msg.nak() : this.#msg.nak(delayMs)));
  }

  /** Gives the message back because its subscription ended, unless claimed: the server redelivers it after `delayMs`. */
  handBack(delayMs: number): void {
    if (!this.#claimed && this.#settle()) this.#send("nak", () => this.#msg.nak(delayMs));
  }

  claim(): void {
    if (this.#held) this.#claimed = true;
  }

  /** Whether it was claimed and is still held: an ending subscription keeps it alive instead of handing it back. */
  get claimed(): boolean {
    return this.#held && this.#claimed;
  }

  /** Restarts the server's ack-wait clock, so a long turn is not redelivered meanwhile. */
  working(): void {
    if (this.#held) this.#send("working", () => this.#msg.working());
  }

  #settle(): boolean {
    if (!this.#held) return false;
    this.#held = false;
    this.#events.settled(this);
    return true;
  }

  #send(action: "ack" | "nak" | "working", reply: () => void): void {
    try {
      reply();
    } catch (err) {
      this.#events.failed(action, this, err);
    }
  }
}
