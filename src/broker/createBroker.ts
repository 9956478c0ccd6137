import { join } from "node:path";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { stateDirOf } from "../acp/pool/createSessionPool.js";
import type { Bus } from "../bus/bus.js";
import { JournalOpenError } from "../bus/errors.js";
import { MemoryBus } from "../bus/memoryBus.js";
import { ConfigError, resolveConfig, type Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { FileDeliveryLedger } from "../state/fileDeliveryLedger.js";
import { fileCronMarks } from "../state/fileCronMarks.js";
import { subjects } from "../wire/index.js";
import { assembleBroker } from "./assembleBroker.js";
import type { Broker } from "./broker.js";
import { brokerLogger } from "./brokerLogger.js";
import type { BrokerOptions } from "./brokerOptions.js";
import type { Role } from "./brokerParts.js";
import { memoryState } from "./brokerState.js";

/** The embedded bus's turn queue, in the state dir. */
export const TURN_QUEUE_JOURNAL = "turn-queue.journal";
/** Its delivery ledger, beside it. */
export const DELIVERY_LEDGER_JOURNAL = "delivery-ledger.journal";
/** The latest minute each cron job fired for (`[cron] catch_up = "last"`). */
export const CRON_MARKS_FILE = "cron-marks.json";

/**
 * Creates a broker on the embedded bus (or on the `bus` you pass). Throws `ConfigError` (every
 * problem, one per key) when the config is invalid or asks for something this build cannot do. A
 * config with `[bus] url` needs a connection first: use `connectBroker`.
 *
 * The embedded bus keeps its turn queue in `<state_dir>/turn-queue.journal` and its delivery
 * ledger beside it whenever the broker keeps state there — it runs the ACP session pool (whose
 * `sessions.json` lives there) or `[pool] state_dir` is set — so events it took survive a crash.
 * A broker in code with its own turn handler and no state dir keeps them in memory only.
 *
 * ```ts
 * const broker = createBroker({ config: { delivery: { mode: "structured" } }, pipeline });
 * await broker.start();
 * ```
 */
export function createBroker(options: BrokerOptions = {}): Broker {
  const env = options.env ?? process.env;
  const config = resolveConfig(options.config ?? {}, { env });
  const role = options.role ?? "all";
  const logger = options.logger ?? brokerLogger(config, env);
  if (options.bus !== undefined) {
    return assembleBroker(options, { config, role, bus: options.bus, ownsBus: false, logger, state: memoryState(config) });
  }
  checkEmbedded(config, role);
  const dir = config.pool.state_dir !== undefined || options.turnHandler === undefined ? stateDirOf(config, env) : undefined;
  if (dir === undefined && config.cron.catch_up === "last") {
    throw new ConfigError([{ path: "cron.catch_up", message: `"last" remembers firings across restarts, and this broker keeps no state: set [pool] state_dir or [bus] url` }]);
  }
  if (dir === undefined) return assembleBroker(options, { config, role, bus: new MemoryBus(), ownsBus: true, logger, state: memoryState(config) });
  const ledger = opened(() => FileDeliveryLedger.open(join(dir, DELIVERY_LEDGER_JOURNAL), logger));
  let bus: Bus;
  try {
    bus = opened(() => new MemoryBus({ journal: { path: join(dir, TURN_QUEUE_JOURNAL), logger, replaySubject: turnSubjectNow(config, logger) } }));
  } catch (err) {
    ledger.close();
    throw err;
  }
  return assembleBroker(options, {
    config,
    role,
    bus,
    ownsBus: true,
    logger,
    state: memoryState(config, ledger),
    ...(config.cron.catch_up === "last" ? { cronMarks: fileCronMarks(join(dir, CRON_MARKS_FILE), logger) } : {}),
    onStopped: async () => ledger.close(),
  });
}

function checkEmbedded(config: Config, role: Role): void {
  if (config.bus.url !== undefined) {
    throw new ConfigError([{ path: "bus.url", message: "a NATS bus needs a connection: create the broker with connectBroker" }]);
  }
  if (role !== "all") {
    throw new ConfigError([
      {
        path: "role",
        message: `"${role}" needs a shared bus ([bus] url); the embedded bus runs edge and worker in one process (--role all)`,
      },
    ]);
  }
}

/** A journal that cannot be used stops start-up with one line naming `pool.state_dir`. */
function opened<T>(open: () => T): T {
  try {
    return open();
  } catch (err) {
    if (err instanceof JournalOpenError) throw new ConfigError([{ path: "pool.state_dir", message: err.message }], { cause: err });
    throw err;
  }
}

/**
 * Where an event read back from the journal is queued now: its session's partition under this
 * config's prefix and partition count, which may differ from the run that appended it (its old
 * subject would have no consumer). Anything else keeps its subject.
 */
function turnSubjectNow(config: Config, logger: Logger): (subject: string, data: unknown) => string {
  const turn = subjects(config.bus.prefix).turn;
  return (subject, data) => {
    if (!isEventShaped(data)) return subject;
    const now = turn(partitionOf(sessionKey(data), config.bus.partitions));
    if (now !== subject) logger.debug({ from: subject, to: now, event_id: data.event_id }, "journaled event moved to its partition");
    return now;
  };
}

function isEventShaped(data: unknown): data is Pick<GatewayEvent, "platform" | "channel" | "event_id"> {
  if (typeof data !== "object" || data === null) return false;
  const { platform, channel } = data as Record<string, unknown>;
  if (typeof platform !== "string" || typeof channel !== "object" || channel === null) return false;
  const { id, thread_id } = channel as Record<string, unknown>;
  return typeof id === "string" && (thread_id === undefined || thread_id === null || typeof thread_id === "string");
}
