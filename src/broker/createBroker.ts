import type { Bus } from "../bus/bus.js";
import { MemoryBus } from "../bus/memoryBus.js";
import { ConfigError, resolveConfig, type Config } from "../config/index.js";
import { assembleBroker } from "./assembleBroker.js";
import type { Broker } from "./broker.js";
import { brokerLogger } from "./brokerLogger.js";
import type { BrokerOptions } from "./brokerOptions.js";
import type { Role } from "./brokerParts.js";
import { memoryState } from "./brokerState.js";

/**
 * Creates a broker on the embedded bus (or on the `bus` you pass). Throws `ConfigError` (every
 * problem, one per key) when the config is invalid or asks for something this build cannot do. A
 * config with `[bus] url` needs a connection first: use `connectBroker`.
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
  const bus = options.bus ?? embeddedBus(config, role);
  const logger = options.logger ?? brokerLogger(config, env);
  return assembleBroker(options, { config, role, bus, ownsBus: options.bus === undefined, logger, state: memoryState(config) });
}

function embeddedBus(config: Config, role: Role): Bus {
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
  return new MemoryBus();
}
