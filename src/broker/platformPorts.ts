import type { Config } from "../config/index.js";
import { GatewayConnector } from "../gateway/connector.js";
import type { Logger } from "../log/logger.js";
import type { Instruments } from "../metrics/instruments.js";
import type { PlatformPort } from "../platforms/platformPort.js";

export interface PlatformPortsOptions {
  readonly logger: Logger;
  readonly version: string;
  readonly metrics: Instruments | undefined;
}

/** An edge's platform ports, as the config names them: the OpenAB gateway's (`[gateway]`). */
export function platformPorts(config: Config, { logger, version, metrics }: PlatformPortsOptions): PlatformPort[] {
  const ports: PlatformPort[] = [];
  if (config.gateway !== undefined) ports.push(gatewayConnector(config.gateway, logger, version, metrics));
  return ports;
}

/** An edge's connection to the gateway `[gateway]` names. */
function gatewayConnector(gateway: NonNullable<Config["gateway"]>, logger: Logger, clientVersion: string, instruments: Instruments | undefined): GatewayConnector {
  return new GatewayConnector({
    url: gateway.url,
    ingress: gateway,
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
