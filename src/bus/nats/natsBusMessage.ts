import type { Msg } from "@nats-io/transport-node";
import type { BusMessage, Headers } from "../bus.js";
import { encodePayload, fromMsgHdrs } from "./natsCodec.js";

/** A core NATS message as a `subscribe()` subscriber sees it. */
export class NatsBusMessage<T> implements BusMessage<T> {
  readonly subject: string;
  readonly headers: Headers;
  // A private field stays out of logs and JSON.
  readonly #msg: Msg;

  constructor(
    msg: Msg,
    readonly data: T,
  ) {
    this.#msg = msg;
    this.subject = msg.subject;
    this.headers = fromMsgHdrs(msg.headers);
  }

  /** False without a reply subject, or when the connection is closed; true says nothing about whether the requester still waits. */
  respond<R>(data: R): boolean {
    if (this.#msg.reply === undefined || this.#msg.reply === "") return false;
    try {
      return this.#msg.respond(encodePayload(data));
    } catch {
      return false;
    }
  }
}
