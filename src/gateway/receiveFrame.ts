import { isUtf8 } from "node:buffer";
import type WebSocket from "ws";
import type { Instruments } from "../metrics/instruments.js";
import type { Logger } from "../log/logger.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { parseGatewayFrame } from "../../operators/ingress/frames/gatewayFrames.js";
import { oversizeEvent } from "../../operators/ingress/frames/oversizeEvent.js";
import type { GatewayHello } from "../../operators/ingress/frames/helloFrame.js";
import type { GatewayResponse } from "../../operators/ingress/frames/responseFrame.js";

/** What reading a frame needs of the connector's options. */
export interface FrameReading {
  readonly logger: Logger;
  /** Frames larger than this are handled without their inline attachments (or dropped). */
  readonly maxFrameBytes: number;
  /** Counts frames dropped as unusable events (`invalid`); default: nothing. */
  readonly instruments?: Instruments;
}

/** Where a connection's usable frames go. */
export interface FrameSink {
  /** A valid `event.v1`, or an oversize frame's event without its inline attachments. */
  readonly event: (event: GatewayEvent) => void;
  /** A `response.v1`: the gateway's ack of a send. */
  readonly response: (response: GatewayResponse) => void;
  /** A `hello.v1`, or undefined for one that claimed to be a hello and did not parse. */
  readonly hello: (hello: GatewayHello | undefined) => void;
}

/**
 * One text frame from the gateway: validated, classified and handed to `sink`, or logged with a
 * stable reason and dropped. Never throws; a bad frame costs that frame, not the connection.
 */
export function receiveFrame(data: WebSocket.RawData, reading: FrameReading, sink: FrameSink): void {
  const { logger } = reading;
  // A text frame comes as one Buffer (ws's default binaryType): read in place, not copied.
  const raw = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  if (!isUtf8(raw)) {
    logger.warn({ reason: "not_utf8", detail: "a text frame that is not valid UTF-8", bytes: raw.length }, "gateway frame dropped");
    reading.instruments?.events("invalid");
    return;
  }
  const frame = parseGatewayFrame(raw, reading.maxFrameBytes);
  if (frame.kind === "rejected" && frame.reason === "too_large") {
    receiveOversize(raw, reading, sink);
    return;
  }
  switch (frame.kind) {
    case "event":
      sink.event(frame.event);
      return;
    case "response":
      sink.response(frame.response);
      return;
    case "hello":
      sink.hello(frame.hello);
      return;
    case "rejected":
      if (frame.reason === "invalid_hello") sink.hello(undefined);
      else {
        logger.warn({ reason: frame.reason, detail: frame.detail, bytes: raw.length }, "gateway frame dropped");
        // A malformed ack is not an event; any other unusable frame is counted as one the broker could not read.
        if (frame.reason !== "invalid_response") reading.instruments?.events("invalid");
      }
      return;
  }
}

/** A frame over `maxFrameBytes`: its event without the inline attachments that made it too big, or dropped. */
function receiveOversize(raw: Buffer, reading: FrameReading, sink: FrameSink): void {
  const { logger, maxFrameBytes } = reading;
  const kept = oversizeEvent(raw, maxFrameBytes);
  if (kept.kind === "rejected") {
    logger.warn({ reason: kept.reason, detail: kept.detail, bytes: raw.length }, "gateway frame dropped");
    reading.instruments?.events("invalid");
    return;
  }
  logger.warn(
    { reason: "frame_too_large", bytes: raw.length, maxFrameBytes, attachments: kept.attachments, event_id: kept.event.event_id },
    "gateway frame over max_frame_bytes; its inline attachments not delivered",
  );
  sink.event(kept.event);
}
