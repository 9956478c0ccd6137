import type { NatsConnection, PublishOptions } from "@nats-io/transport-node";
import { PayloadTooLargeError } from "../errors.js";

/**
 * `nc.publish`, with a message over the server's `max_payload` refused as `PayloadTooLargeError`:
 * nats.js throws a bare InvalidArgumentError for it, which reads like any bad argument and invites
 * a retry that can never succeed. The message is measured only after the client refused it, so a
 * publish that fits costs nothing more.
 */
export function publishWithin(nc: NatsConnection, subject: string, payload: Uint8Array, options?: PublishOptions): void {
  try {
    nc.publish(subject, payload, options);
  } catch (err) {
    const maxPayloadBytes = nc.info?.max_payload;
    // What the client weighs against max_payload: the payload and the headers as written on the wire (their toString).
    const bytes = payload.byteLength + (options?.headers === undefined ? 0 : Buffer.byteLength(options.headers.toString()));
    if (maxPayloadBytes !== undefined && bytes > maxPayloadBytes) throw new PayloadTooLargeError(subject, bytes, maxPayloadBytes, { cause: err });
    throw err;
  }
}
