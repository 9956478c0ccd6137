import { readiness, type BrokerPhase, type Readiness } from "../metrics/readiness.js";
import type { Worker } from "../worker/worker.js";
import type { BrokerParts } from "./brokerParts.js";

/** Where a `Broker` is in its life, as it keeps it. */
export type BrokerLifecycle = "created" | "running" | "stopping" | "stopped";

/** The phase readiness reports for a broker `lifecycle`, once its stop has begun or not. */
export function brokerPhase(lifecycle: BrokerLifecycle, stopBegun: boolean): BrokerPhase {
  if (lifecycle === "stopped") return "stopped";
  // A stop that has begun is draining at once, before the edge's intake has flushed.
  if (stopBegun) return "draining";
  return lifecycle === "running" ? "running" : "starting";
}

/** What `/readyz` answers for a broker in `phase`, from the connections and partitions its parts hold now. */
export function brokerReadiness(phase: BrokerPhase, parts: BrokerParts, worker: Worker | undefined): Readiness {
  return readiness({
    phase,
    bus: parts.bus.connected?.() ?? true,
    ports: (parts.ports ?? []).map((port) => ({ name: port.name, connected: port.isConnected })),
    ...(worker === undefined
      ? {}
      : { partitions: { owned: worker.ownedPartitions, share: parts.partitionShare === undefined ? parts.config.bus.partitions : parts.partitionShare() } }),
  });
}
