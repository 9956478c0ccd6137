import { hostname } from "node:os";
import { nuid } from "@nats-io/transport-node";
import { openBucket } from "../bus/nats/buckets.js";
import { NatsBus } from "../bus/nats/natsBus.js";
import { resolveConfig, type Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { nativePlatforms } from "../platforms/nativePlatforms.js";
import { subjects } from "../wire/index.js";
import { PartitionLeases } from "../scale/partitionLeases.js";
import { ReceiverLease } from "../scale/receiverLease.js";
import type { LeaseBucket } from "../scale/leaseBucket.js";
import { openSharedState } from "../state/kv/sharedState.js";
import { openSharedRates } from "../state/kv/sharedRates.js";
import { KvCronMarks } from "../state/kv/kvCronMarks.js";
import type { Broker } from "./broker.js";
import { assembleBroker } from "./assembleBroker.js";
import type { BrokerParts, ReceiverHold } from "./brokerParts.js";
import { brokerLogger } from "./brokerLogger.js";
import type { BrokerOptions } from "./brokerOptions.js";
import { createBroker } from "./createBroker.js";

/**
 * Creates a broker, connecting first when the config names a NATS server (`[bus] url`): the turn
 * stream and the shared-state buckets are created or checked, a worker takes part in the
 * partition leases once started, and an edge in the receiver leases of its native platforms (one
 * edge per bot polls Telegram). Without `[bus] url` (or with a `bus` passed in) it is
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
    const ttlMs = config.bus.lease_ttl_secs * 1000;
    const openLeases = () => openBucket(bus.connection, subjects(config.bus.prefix).buckets.leases, { ttlMs });
    // Native platforms' connections may allow one holder per bot: an edge holding them takes part in their leases.
    const receiving = role !== "worker" && nativePlatforms(config).size > 0;
    // `[cron] catch_up = "last"`: every process that fires records it where the others read.
    const cronMarks = role !== "worker" && config.cron.catch_up === "last" ? new KvCronMarks(await openBucket(bus.connection, subjects(config.bus.prefix).buckets.cron, { ttlMs: 0 })) : undefined;
    const withMarks = cronMarks === undefined ? {} : { cronMarks };
    if (role === "edge") {
      const receivers = receiving ? receiverLeases(await openLeases(), config, workerId, logger) : undefined;
      // Its trust echoes take their per-bot tokens from the deployment's pool, as the workers' sends do.
      return assembleBroker(options, {
        config,
        role,
        bus,
        ownsBus: true,
        logger,
        rates: await openSharedRates(bus.connection, config),
        ...withMarks,
        ...(receivers === undefined ? {} : { holdReceiver: receivers.hold, onStopping: receivers.stop }),
      });
    }
    const [state, leaseBucket] = await Promise.all([openSharedState(bus.connection, config), openLeases()]);
    const receivers = receiving ? receiverLeases(leaseBucket, config, workerId, logger) : undefined;
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
      ...withMarks,
      ownership: leases.owned,
      partitionShare: () => leases.share,
      onStart: async () => leases.start(),
      onStopping: async () => void (await Promise.all([leases.stop(), receivers?.stop()])),
      ...(receivers === undefined ? {} : { holdReceiver: receivers.hold }),
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

/** The receiver leases of an edge's ports, one per port that has a receiver, all stopped together. */
function receiverLeases(kv: LeaseBucket, config: Config, holder: string, logger: Logger): { hold: NonNullable<BrokerParts["holdReceiver"]>; stop: () => Promise<void> } {
  const held: ReceiverHold[] = [];
  return {
    hold: (receiver) => {
      const lease = new ReceiverLease({ kv, holder, receiver, ttlMs: config.bus.lease_ttl_secs * 1000, logger });
      lease.start();
      held.push(lease);
      return lease;
    },
    stop: async () => void (await Promise.all(held.map((lease) => lease.stop()))),
  };
}
