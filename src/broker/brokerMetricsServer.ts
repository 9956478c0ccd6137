import { EventLoopHealth } from "../metrics/eventLoopHealth.js";
import { MetricsServer } from "../metrics/metricsServer.js";
import type { Readiness } from "../metrics/readiness.js";
import type { Worker } from "../worker/worker.js";
import type { BrokerParts } from "./brokerParts.js";

/**
 * `/metrics`, `/healthz`, `/readyz` on `[metrics] listen`, when `[metrics]` is enabled (none
 * otherwise), with the gauges the metrics read from the broker's parts: the gateway's connection,
 * the native platforms' connections, the partitions its worker owns.
 */
export function brokerMetricsServer(parts: BrokerParts, worker: Worker | undefined, readiness: () => Readiness): MetricsServer | undefined {
  const { metrics } = parts;
  if (metrics === undefined) return undefined;
  const gatewayPort = parts.ports?.find((port) => port.platforms === undefined);
  metrics.read({
    ...(gatewayPort === undefined ? {} : { gatewayConnected: () => gatewayPort.isConnected }),
    platformConnected: (platform) => parts.ports?.find((port) => port.platforms?.includes(platform) === true)?.isConnected === true,
    ...(worker === undefined ? {} : { partitionsOwned: () => worker.ownedPartitions }),
  });
  return new MetricsServer({
    listen: parts.config.metrics.listen,
    metrics: () => metrics.metrics(),
    contentType: metrics.registry.contentType,
    readiness,
    health: new EventLoopHealth(),
    logger: parts.logger,
  });
}
