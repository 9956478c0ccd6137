import type { Bus } from "../bus/bus.js";
import { MemoryBus } from "../bus/memoryBus.js";
import { ConfigError, resolveConfig, type Config, type ConfigInput } from "../config/index.js";
import { createLogger, resolveLogLevel, type Logger } from "../log/logger.js";
import { Pipeline } from "../pipeline/pipeline.js";
import { createSessionPool } from "../acp/createSessionPool.js";
import { packageVersion } from "../version.js";
import { GatewayConnector } from "../gateway/connector.js";
import { InboundDedupe } from "../../operators/ingress/inboundDedupe.js";
import { settingsFromConfig } from "../../operators/triage/triageSettings.js";
import { sweepTriage } from "../../operators/triage/triageSweep.js";
import { MemoryTriageStore } from "../state/triageStore.js";
import { createAgentTurnHandler } from "./agentTurnHandler.js";
import { Broker, type Role } from "./broker.js";
import type { TurnHandler } from "./turn.js";

export interface BrokerOptions {
  /** A TOML-shaped config object (validated like a config file) or the result of `resolveConfig`/`loadConfigFile`. */
  readonly config?: ConfigInput | Config;
  /** Your operators at the named stages. */
  readonly pipeline?: Pipeline;
  /** Defaults to the embedded in-process bus. */
  readonly bus?: Bus;
  /** Defaults to a pino logger configured by `[log]` and `LOG_LEVEL`. */
  readonly logger?: Logger;
  /** Default `all`: edge and worker in one process. */
  readonly role?: Role;
  /** Runs each turn. Default: the ACP session pool (`[agent]`, `[pool]`) with text delivery. */
  readonly turnHandler?: TurnHandler;
  /** Environment for `${VAR}` expansion and `LOG_LEVEL`; defaults to `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Creates a broker from a config object. Throws `ConfigError` (every problem, one per key) when
 * the config is invalid or asks for something this build cannot do.
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
  const logger =
    options.logger ??
    createLogger({ level: logLevel(config, env), pretty: config.log.pretty });
  const version = packageVersion();
  // Workers run turns on the ACP session pool unless the caller brings its own handler.
  const pool = role !== "edge" && options.turnHandler === undefined ? createSessionPool(config, { env, logger, clientVersion: version }) : undefined;
  const triage = config.triage.enabled ? { settings: settingsFromConfig(config.triage), store: new MemoryTriageStore() } : undefined;
  const inboundDedupe = new InboundDedupe({ ttlMs: config.inbound.dedupe_ttl_secs * 1000, max: config.inbound.dedupe_max });
  const turnHandler =
    options.turnHandler ?? (pool === undefined ? undefined : createAgentTurnHandler({ pool, config, inboundDedupe, ...(triage === undefined ? {} : { triage }) }));
  // Conversations quiet for longer than anything triage remembers are dropped, on the pool's sweep interval.
  const sweep = triage === undefined ? undefined : sweepTriage(triage.store, { ttlMs: triageMemoryMs(config.triage) }).subscribe();
  return new Broker({
    config,
    bus,
    ownsBus: options.bus === undefined,
    logger,
    pipeline: options.pipeline ?? new Pipeline(),
    role,
    turnHandler,
    ...(role !== "worker" && config.gateway !== undefined ? { connector: gatewayConnector(config.gateway, logger, version) } : {}),
    onStopped: async () => {
      sweep?.unsubscribe();
      await pool?.close();
    },
  });
}

function gatewayConnector(gateway: NonNullable<Config["gateway"]>, logger: Logger, clientVersion: string): GatewayConnector {
  return new GatewayConnector({
    url: gateway.url,
    ...(gateway.token === undefined ? {} : { token: gateway.token }),
    logger,
    maxFrameBytes: gateway.max_frame_bytes,
    clientVersion,
    legacyAckTimeoutMs: gateway.legacy_ack_timeout_secs * 1000,
    requiredAckTimeoutMs: gateway.gateway_ack_timeout_secs * 1000,
    streaming: gateway.streaming,
    streamingPlaceholder: gateway.streaming_placeholder,
  });
}

/** The longest any triage rule looks back: the dedupe window, the cooldown, and a day (plus a DST hour) for the cap. */
function triageMemoryMs(triage: Config["triage"]): number {
  return Math.max(triage.dedupe_window_secs, triage.cooldown_secs, 25 * 3600) * 1000;
}

function embeddedBus(config: Config, role: Role): Bus {
  if (config.bus.url !== undefined) {
    throw new ConfigError([
      { path: "bus.url", message: "a NATS bus is not available in this version of turnstream; remove bus.url to run on the embedded bus" },
    ]);
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

function logLevel(config: Config, env: NodeJS.ProcessEnv) {
  try {
    return resolveLogLevel(config.log.level, env.LOG_LEVEL);
  } catch (err) {
    throw new ConfigError([{ path: "", message: err instanceof Error ? err.message : String(err) }], { cause: err });
  }
}
