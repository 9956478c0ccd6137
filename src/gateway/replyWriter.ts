import { randomUUID } from "node:crypto";
import type WebSocket from "ws";
import type { Logger } from "../log/logger.js";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { GatewayResponse } from "../../operators/ingress/frames/responseFrame.js";
import { FRAME_CEILING_BYTES } from "../config/sections/gateway.js";
import type { SendOptions } from "../platforms/platformPort.js";
import { SendError, SKIPPED_MESSAGE_ID } from "../wire/index.js";
import { ackPolicy } from "./ackPolicy.js";
import { legacySent, PendingAcks } from "./pendingAcks.js";
import { replyFrame } from "./replyFrame.js";

export interface ReplyWriterOptions {
  readonly logger: Logger;
  /** Without a capability handshake: how long to wait for an ack before counting the send as sent. */
  readonly legacyAckTimeoutMs: number;
  /** With a handshake that requires acks: how long before the send fails. */
  readonly requiredAckTimeoutMs: number;
  /**
   * The largest frame written, as the largest one read (the connector's ws `maxPayload`); only a
   * file's frame can come near it, and one over it is refused as `file_too_large`. Default
   * `FRAME_CEILING_BYTES` (128 MiB: a gateway platform's 8 MiB file is about 11 MiB in base64).
   */
  readonly frameCeilingBytes?: number;
}

/**
 * Writes reply frames to the gateway's socket as each message's ack policy says: skipped, refused,
 * written and settled once the socket took it, or written with a `request_id` and settled by the
 * gateway's `response.v1` ack.
 */
export class ReplyWriter {
  readonly #options: ReplyWriterOptions;
  readonly #pending: PendingAcks;
  /** Platforms already warned about on this connection (see `#noteUnackedOrdering`). */
  readonly #unackedNoted = new Set<string>();

  constructor(options: ReplyWriterOptions) {
    this.#options = options;
    this.#pending = new PendingAcks(options.logger);
  }

  /**
   * Posts `message` on `socket` under `capabilities` (undefined: legacy mode), with `options.file`
   * inline in its frame when there is one. `waitedMs` is how long the send already waited for a
   * connection: the ack timeouts count from the call.
   */
  post(socket: WebSocket, message: OutboundMessage, capabilities: PlatformCapabilities | undefined, options: SendOptions, waitedMs: number): Promise<SendReceipt> {
    const policy = ackPolicy(message, capabilities, options.wantAck);
    switch (policy.kind) {
      case "skip":
        return Promise.resolve(reactionSkipped);
      case "unsupported":
        return Promise.reject(new SendError("unsupported", policy.detail));
      case "write":
        if (policy.unacked) this.#noteUnackedOrdering(message.platform);
        return this.#write(socket, message, options.file);
      case "ask":
        return this.#ask(socket, message, options.file, policy.required, waitedMs);
    }
  }

  /** The gateway's `response.v1`: settles the send waiting for it. */
  acknowledge(response: GatewayResponse): void {
    this.#pending.acknowledge(response);
  }

  /** A new connection: a platform that does not ack is warned about again. */
  connectionOpened(): void {
    this.#unackedNoted.clear();
  }

  /** The connection closed (`abandoned`: the connector gave up on it): sends waiting for an ack settle. */
  connectionClosed(abandoned: boolean): void {
    this.#pending.connectionClosed(abandoned);
  }

  /** Writes a frame with a `request_id` and settles with the gateway's ack. */
  #ask(socket: WebSocket, message: OutboundMessage, file: Uint8Array | undefined, required: boolean, waitedMs: number): Promise<SendReceipt> {
    const requestId = `req_${randomUUID()}`;
    let frame: string | Buffer;
    try {
      frame = this.#frame(message, requestId, file);
    } catch (err) {
      return Promise.reject(err);
    }
    const timeoutMs = Math.max(0, (required ? this.#options.requiredAckTimeoutMs : this.#options.legacyAckTimeoutMs) - waitedMs);
    // The waiter exists before the frame leaves, so even an instant ack finds it.
    const acked = this.#pending.wait(requestId, required, timeoutMs);
    socket.send(frame, { binary: false }, (err) => {
      if (err !== undefined && err !== null) this.#pending.writeFailed(requestId, err);
    });
    return acked;
  }

  /** Writes a frame that asks for no ack: settled once the socket took it. */
  #write(socket: WebSocket, message: OutboundMessage, file: Uint8Array | undefined): Promise<SendReceipt> {
    let frame: string | Buffer;
    try {
      frame = this.#frame(message, undefined, file);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) =>
      socket.send(frame, { binary: false }, (err) =>
        err === undefined || err === null ? resolve(legacySent) : reject(new SendError("write_failed", "writing to the gateway failed", { cause: err })),
      ),
    );
  }

  /**
   * The frame to write; throws `SendError`. A file's frame is measured as the bytes ws would write
   * (and written as those bytes, a text frame still, so they are encoded once).
   */
  #frame(message: OutboundMessage, requestId: string | undefined, file: Uint8Array | undefined): string | Buffer {
    let frame: string;
    try {
      frame = replyFrame(message, requestId, file);
    } catch (err) {
      throw unwritable(err);
    }
    if (file === undefined) return frame;
    const bytes = Buffer.from(frame, "utf8");
    const ceilingBytes = this.#options.frameCeilingBytes ?? FRAME_CEILING_BYTES;
    if (bytes.byteLength > ceilingBytes) {
      throw new SendError("file_too_large", `the file's reply frame is ${bytes.byteLength} bytes, over the ${ceilingBytes} a gateway frame may be`);
    }
    return bytes;
  }

  #noteUnackedOrdering(platform: string): void {
    if (this.#unackedNoted.has(platform)) return;
    this.#unackedNoted.add(platform);
    this.#options.logger.warn({ reason: "no_send_ack", platform }, "gateway does not ack sends; bubble order relies on the socket");
  }
}

/** The receipt of a reaction the gateway's hello said the platform cannot show: nothing was posted. */
const reactionSkipped: SendReceipt = { messageId: SKIPPED_MESSAGE_ID };

/** Whatever a beforeSend stage handed on: a rejection, never a throw into the caller's stream. */
function unwritable(cause: unknown): SendError {
  return new SendError("write_failed", "the message cannot be written as a reply frame", { cause });
}
