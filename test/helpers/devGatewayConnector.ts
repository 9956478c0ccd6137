import { DevGateway, type DevGatewayOptions, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { GatewayConnector, type GatewayConnectorOptions } from "../../src/gateway/connector.js";
import type { Logger } from "../../src/log/logger.js";
import { defaultIngress } from "./ingressRules.js";
import { captureLogs, type LogRecord } from "./logCapture.js";

/** A real dev gateway and a connector pointed at it (not started), with test-sized timeouts; the caller closes both. */
export interface DevGatewayConnector {
  readonly gateway: DevGateway;
  readonly connector: GatewayConnector;
  /** Reply frames the gateway received, in order. */
  readonly frames: ReplyFrame[];
  readonly logger: Logger;
  readonly records: LogRecord[];
}

/** Starts the dev gateway and builds its connector: 1 MiB frames, 200 ms legacy acks, quick reconnects; `overrides` over them. */
export async function devGatewayConnector(gatewayOptions: DevGatewayOptions, overrides: Partial<GatewayConnectorOptions> = {}): Promise<DevGatewayConnector> {
  const gateway = await DevGateway.start(gatewayOptions);
  const frames: ReplyFrame[] = [];
  gateway.received.subscribe((r) => r.kind === "reply" && frames.push(r.frame));
  const { logger, records } = captureLogs();
  const connector = new GatewayConnector({
    url: gateway.url,
    ingress: defaultIngress,
    token: gateway.token,
    logger,
    maxFrameBytes: 1 << 20,
    clientVersion: "test",
    legacyAckTimeoutMs: 200,
    requiredAckTimeoutMs: 10_000,
    streaming: false,
    streamingPlaceholder: true,
    backoff: { initialMs: 50, maxMs: 200 },
    ...overrides,
  });
  return { gateway, connector, frames, logger, records };
}
