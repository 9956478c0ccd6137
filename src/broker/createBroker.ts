import { resolve as resolvePath } from "node:path";
import { distinctUntilChanged, EMPTY, map, of, retry, switchMap, timer, type Observable } from "rxjs";
import type { Bus } from "../bus/bus.js";
import { MemoryBus } from "../bus/memoryBus.js";
import { ConfigError, resolveConfig, secretValues, type Config, type ConfigInput } from "../config/index.js";
import { createLogger, resolveLogLevel, type Logger } from "../log/logger.js";
import { chatRedaction } from "../log/secretScrubber.js";
import { Pipeline } from "../pipeline/pipeline.js";
import { createSessionPool } from "../acp/pool/createSessionPool.js";
import { SpeechToText } from "../stt/speechToText.js";
import { packageVersion } from "../version.js";
import { GatewayConnector } from "../gateway/connector.js";
import { InboundDedupe } from "../../operators/ingress/inboundDedupe.js";
import { settingsFromConfig } from "../../operators/triage/triageSettings.js";
import { sweepTriage, TRIAGE_SWEEP_INTERVAL_MS } from "../../operators/triage/triageSweep.js";
import type { TriageStore } from "../../operators/triage/triageStore.js";
import { MemoryDedupeStore, type DedupeStore } from "../state/dedupeStore.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import type { SessionStore } from "../state/sessionStore.js";
import { MemoryTriageStore } from "../state/triageStore.js";
import { MemoryHistoryStore, type HistoryStore } from "../state/historyStore.js";
import { GroupHistory } from "../turn/groupHistory.js";
import { MemoryRateBuckets, type RateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import { ReplyToolHost } from "../mcp/replyToolHost.js";
import { connectionLimitFor } from "../mcp/connectionLimit.js";
import { BrokerMetrics } from "../metrics/brokerMetrics.js";
import type { AgentExitCause, Instruments } from "../metrics/instruments.js";
import { replyToolSpecOf } from "../mcp/replyToolSpec.js";
import { createAgentTurnHandler } from "../turn/agentTurnHandler.js";
import { Broker, type Role } from "./broker.js";
import type { TurnHandler } from "../turn/turn.js";

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

/** What a broker is assembled from, whichever bus it runs on. */
export interface BrokerAssembly {
  readonly config: Config;
  readonly role: Role;
  readonly bus: Bus;
  readonly ownsBus: boolean;
  readonly logger: Logger;
  /** Workers' state: in memory on the embedded bus, in NATS KV when workers scale out. An edge has none. */
  readonly state?: BrokerState;
  /** An edge's per-bot rate buckets (the deployment's), for what it sends itself; a worker's are in `state`. */
  readonly rates?: RateBuckets;
  /** The partitions this worker consumes (default: all of them). */
  readonly ownership?: Observable<ReadonlySet<number>>;
  /** How many partitions this worker should hold now (see `BrokerParts.partitionShare`); absent: all of them. */
  readonly partitionShare?: () => number | undefined;
  readonly onStart?: () => Promise<void>;
  readonly onStopping?: () => Promise<void>;
  readonly onStopped?: () => Promise<void>;
}

export interface BrokerState {
  readonly triage: TriageStore;
  /** Absent: `<state_dir>/sessions.json`. */
  readonly sessions?: SessionStore;
  readonly dedupe: DedupeStore;
  /**
   * Absent on the embedded bus: nothing outlives the process there, so no event can come back
   * after its turn completed, and a ledger in the same memory would know nothing a restart needs.
   */
  readonly ledger?: DeliveryLedger;
  /** The per-bot rate buckets (`[rate_limits]`): this process's on the embedded bus, the deployment's on NATS. */
  readonly rates: RateBuckets;
  /** Group history (`[inbound] history_limit` > 0): this process's on the embedded bus, the deployment's on NATS. */
  readonly history?: HistoryStore;
}

/** Wires a broker's parts: the session pool and turn handler (workers), the gateway connector (edges), triage and its sweep. */
export function assembleBroker(options: BrokerOptions, assembly: BrokerAssembly): Broker {
  const { config, role, bus, logger } = assembly;
  const env = options.env ?? process.env;
  const version = packageVersion();
  const worker = role !== "edge";
  const state = assembly.state;
  if (worker && state === undefined) throw new Error("a worker needs its state stores");
  const metrics = config.metrics.enabled ? new BrokerMetrics({ role, mode: config.delivery.mode, partitions: config.bus.partitions, version, gateway: role !== "worker" && config.gateway !== undefined }) : undefined;
  // Workers run turns on the ACP session pool unless the caller brings its own handler.
  const replyTool = worker && options.turnHandler === undefined ? replyToolHostFor(config, logger) : undefined;
  // What users see of agent text besides its reply (tool titles and arguments, errors) is masked as the log is.
  const redact = chatRedaction(secretValues(config));
  const pool =
    worker && options.turnHandler === undefined
      ? createSessionPool(config, {
          env,
          logger,
          clientVersion: version,
          redact,
          ...(state?.sessions === undefined ? {} : { store: state.sessions }),
          ...(replyTool === undefined ? {} : { mcp: replyTool }),
          ...(metrics === undefined ? {} : { onAgentExit: (cause: AgentExitCause) => metrics.agentExited(cause) }),
        })
      : undefined;
  if (pool !== undefined) metrics?.read({ sessions: () => pool.size, waitingForSession: () => pool.waiting });
  const preload = pool !== undefined && config.pool.preload_persisted_sessions;
  const triage = config.triage.enabled && state !== undefined ? { settings: settingsFromConfig(config.triage), store: state.triage } : undefined;
  const history = state?.history === undefined ? undefined : new GroupHistory(state.history, config.inbound.history_limit, logger);
  const turnHandler =
    options.turnHandler ??
    (pool === undefined
      ? undefined
      : createAgentTurnHandler({
          pool,
          config,
          ...(state === undefined ? {} : { inboundDedupe: state.dedupe }),
          ...(history === undefined ? {} : { history }),
          ...(replyTool === undefined ? {} : { replyTool }),
          ...(config.gateway?.streaming === true ? { streaming: { placeholder: config.gateway.streaming_placeholder } } : {}),
          ...(config.stt.enabled ? { stt: { speech: speechToTextFor(config, env, logger), echo: config.stt.echo_transcript } } : {}),
          ...(config.gateway?.bot_username === undefined ? {} : { identityName: config.gateway.bot_username }),
          ...(config.activity.enabled && config.reactions.tool_display !== "none"
            ? { activity: { toolDisplay: config.reactions.tool_display, redact, places: { workspaceRoot: resolvePath(config.agent.working_dir), ...(env.HOME === undefined ? {} : { home: env.HOME }) } } }
            : {}),
        }));
  // Conversations quiet for longer than anything triage remembers are dropped, by one worker: the holder of partition 0.
  const sweep =
    triage === undefined || !worker
      ? undefined
      : sweepLeader(assembly.ownership)
          .pipe(
            switchMap((leader) =>
              leader
                ? sweepTriage(triage.store, { ttlMs: triageMemoryMs(config.triage) }).pipe(
                    retry({
                      delay: (err: unknown) => {
                        logger.warn({ reason: "sweep_failed", err }, "triage sweep failed");
                        return timer(TRIAGE_SWEEP_INTERVAL_MS);
                      },
                    }),
                  )
                : EMPTY,
            ),
          )
          .subscribe();
  return new Broker({
    config,
    bus,
    ownsBus: assembly.ownsBus,
    logger,
    pipeline: options.pipeline ?? new Pipeline(),
    role,
    turnHandler,
    ...(state?.ledger === undefined ? {} : { ledger: state.ledger }),
    ...(state === undefined ? (assembly.rates === undefined ? {} : { rates: assembly.rates }) : { rates: state.rates }),
    ...(history === undefined ? {} : { history }),
    ...(triage === undefined || !worker ? {} : { triage }),
    ...(assembly.ownership === undefined ? {} : { ownership: assembly.ownership }),
    ...(assembly.partitionShare === undefined ? {} : { partitionShare: assembly.partitionShare }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(assembly.onStart === undefined && replyTool === undefined && !preload
      ? {}
      : {
          onStart: async () => {
            // The reply tool first: a preloaded session is offered it.
            await replyTool?.start();
            if (preload) await pool?.preload();
            await assembly.onStart?.();
          },
        }),
    ...(assembly.onStopping === undefined ? {} : { onStopping: assembly.onStopping }),
    ...(role !== "worker" && config.gateway !== undefined ? { connector: gatewayConnector(config.gateway, logger, version, metrics) } : {}),
    onStopped: async () => {
      sweep?.unsubscribe();
      await pool?.close();
      await replyTool?.close();
      await assembly.onStopped?.();
    },
  });
}

/** `[stt]`'s client: an empty `api_key` with a groq.com `base_url` takes `GROQ_API_KEY` from the environment, as upstream. */
function speechToTextFor(config: Config, env: NodeJS.ProcessEnv, logger: Logger): SpeechToText {
  const { stt } = config;
  const apiKey = stt.api_key === "" && stt.base_url.includes("groq.com") ? (env.GROQ_API_KEY ?? "") : stt.api_key;
  return new SpeechToText({ baseUrl: stt.base_url, apiKey, model: stt.model, logger, timeoutMs: stt.timeout_secs * 1000 });
}

/** The reply tool of a worker that runs turns on the session pool: in structured and sequential modes unless `[delivery] reply_tool = "off"`. */
function replyToolHostFor(config: Config, logger: Logger): ReplyToolHost | undefined {
  const spec = replyToolSpecOf(config.delivery);
  return spec === undefined ? undefined : new ReplyToolHost({ spec, logger, connectionLimit: connectionLimitFor(config.pool.max_sessions) });
}

/** Emits whether this worker is the one that sweeps: it owns partition 0 (the only worker on the embedded bus). */
function sweepLeader(ownership: Observable<ReadonlySet<number>> | undefined): Observable<boolean> {
  return ownership === undefined ? of(true) : ownership.pipe(map((owned) => owned.has(0)), distinctUntilChanged());
}

/** One process's state, for the embedded bus. */
function memoryState(config: Config): BrokerState {
  return {
    triage: new MemoryTriageStore(),
    rates: new MemoryRateBuckets(),
    dedupe: new MemoryDedupeStore(new InboundDedupe({ ttlMs: config.inbound.dedupe_ttl_secs * 1000, max: config.inbound.dedupe_max })),
    ...(config.inbound.history_limit > 0 ? { history: new MemoryHistoryStore() } : {}),
  };
}

/** A pino logger configured by `[log]` and `LOG_LEVEL`; it masks the config's secrets should any text carry them. */
export function brokerLogger(config: Config, env: NodeJS.ProcessEnv): Logger {
  return createLogger({ level: logLevel(config, env), pretty: config.log.pretty, secrets: secretValues(config) });
}

function gatewayConnector(gateway: NonNullable<Config["gateway"]>, logger: Logger, clientVersion: string, instruments: Instruments | undefined): GatewayConnector {
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

/** The longest any triage rule looks back: the dedupe window, the cooldown, and a day (plus a DST hour) for the cap. */
function triageMemoryMs(triage: Config["triage"]): number {
  return Math.max(triage.dedupe_window_secs, triage.cooldown_secs, 25 * 3600) * 1000;
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

function logLevel(config: Config, env: NodeJS.ProcessEnv) {
  try {
    return resolveLogLevel(config.log.level, env.LOG_LEVEL);
  } catch (err) {
    throw new ConfigError([{ path: "", message: err instanceof Error ? err.message : String(err) }], { cause: err });
  }
}
