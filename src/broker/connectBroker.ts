import { hostname } from "node:os";
import { nuid } from "@nats-io/transport-node";
import { openBucket } from "../bus/nats/buckets.js";
import { NatsBus } from "../bus/nats/natsBus.js";
import { resolveConfig } from "../config/index.js";
import { subjects } from "../wire/index.js";
import { PartitionLeases } from "../scale/partitionLeases.js";
import { openSharedState } from "../state/kv/sharedState.js";
import { openSharedRates } from "../state/kv/sharedRates.js";
import type { Broker } from "./broker.js";
import { assembleBroker } from "./assembleBroker.js";
import { brokerLogger } from "./brokerLogger.js";
import type { BrokerOptions } from "./brokerOptions.js";
import { createBroker } from "./createBroker.js";

/**
 * Creates a broker, connecting first when the config names a NATS server (`[bus] url`): the turn
 * stream and the shared-state buckets are created or checked, and a worker takes part in the
 * partition leases once started. Without `[bus] url` (or with a `bus` passed in) it is
 * `createBroker`. Rejects with `ConfigError` for a bad config and `BusSetupError` when the server
 * cannot be used (unreachable, no JetStream, a conflicting stream or bucket).
 *
 * ```ts
 * const broker = await connectBroker({ config: { bus: { url: "nats://127.0.0.1:4222" } }, role: "worker" });
 * await broker.start();
 * ```
 */
export async function connectBroker(options: BrokerOptions = {}): Promise<Broker> {
  const env = options.env ?? process.env;
  const config = resolveConfig(options.config ?? {}, { env });
  if (config.bus.url === undefined || options.bus !== undefined) return createBroker({ ...options, config });
  const role = options.role ?? "all";
  const logger = options.logger ?? brokerLogger(config, env);
  const workerId = `${hostToken()}-${process.pid}-${nuid.next().slice(-6)}`;
  const bus = await NatsBus.connect({ bus: config.bus, logger, name: `turnstream-${role}-${workerId}` });
  try {
    if (role === "edge") {
      // Its trust echoes take their per-bot tokens from the deployment's pool, as the workers' sends do.
      return assembleBroker(options, { config, role, bus, ownsBus: true, logger, rates: await openSharedRates(bus.connection, config) });
    }
    const ttlMs = config.bus.lease_ttl_secs * 1000;
    const [state, leaseBucket] = await Promise.all([
      openSharedState(bus.connection, config),
      openBucket(bus.connection, subjects(config.bus.prefix).buckets.leases, { ttlMs }),
    ]);
    // The broker drains a partition before its lease is handed on; it exists by the time leases tick.
    let broker: Broker | undefined;
    const leases = new PartitionLeases({
      kv: leaseBucket,
      workerId,
      partitions: config.bus.partitions,
      ttlMs,
      logger: logger.child({ workerId }),
      drain: (partition) => broker?.drainPartition(partition) ?? Promise.resolve(),
    });
    broker = assembleBroker(options, {
      config,
      role,
      bus,
      ownsBus: true,
      logger,
      state,
      ownership: leases.owned,
      partitionShare: () => leases.share,
      onStart: async () => leases.start(),
      onStopping: () => leases.stop(),
    });
    logger.info({ workerId, partitions: config.bus.partitions, leaseTtlMs: ttlMs }, "worker joined");
    return broker;
  } catch (err) {
    await bus.close();
    throw err;
  }
}

/** The host name as one KV key token. */
function hostToken(): string {
  return hostname().replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40) || "host";
}
