import type { Config } from "../config/index.js";
import { GatewayConnector } from "../gateway/connector.js";
import type { Logger } from "../log/logger.js";
import type { Instruments } from "../metrics/instruments.js";

/** An edge's connection to the gateway `[gateway]` names. */
export function gatewayConnector(gateway: NonNullable<Config["gateway"]>, logger: Logger, clientVersion: string, instruments: Instruments | undefined): GatewayConnector {
  return new GatewayConnector({
    url: gateway.url,
    ...(gateway.token === undefined ? {} : { token: gateway.token }),
    logger,
    maxFrameBytes: gateway.max_frame_bytes,
    clientVersion,
    legacyAckTimeoutMs: gateway.legacy_ack_timeout_secs * 1000,
    requiredAckTimeoutMs: gateway.gateway_ack_timeout_secs * 1000,
    keepaliveMs: gateway.keepalive_secs * 1000,
    streaming: gateway.streaming,
    streamingPlaceholder: gateway.streaming_placeholder,
    ...(instruments === undefined ? {} : { instruments }),
  });
}
