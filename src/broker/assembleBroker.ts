import type { Observable } from "rxjs";
import { settingsFromConfig } from "../../operators/triage/triageSettings.js";
import type { RateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import type { Bus } from "../bus/bus.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { BrokerMetrics } from "../metrics/brokerMetrics.js";
import { Pipeline } from "../pipeline/pipeline.js";
import { nativePlatforms } from "../platforms/nativePlatforms.js";
import { GroupHistory } from "../turn/groupHistory.js";
import { packageVersion } from "../version.js";
import { Broker } from "./broker.js";
import type { BrokerParts, Role } from "./brokerParts.js";
import type { BrokerOptions } from "./brokerOptions.js";
import type { BrokerState } from "./brokerState.js";
import { platformPorts, preparePorts } from "./platformPorts.js";
import { sessionPoolTurns } from "./sessionPoolTurns.js";
import { proactiveSources } from "./proactiveSources.js";
import { MemoryCronMarks, type CronMarks } from "../state/cronMarks.js";
import { withCronFirings } from "../turn/cronTurns.js";
import { triageSweepByLeader } from "./triageSweepByLeader.js";

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
  /** How an edge holds a port's receiver on a shared bus (see `BrokerParts.holdReceiver`); absent: every port receives. */
  readonly holdReceiver?: BrokerParts["holdReceiver"];
  /** The partitions this worker consumes (default: all of them). */
  readonly ownership?: Observable<ReadonlySet<number>>;
  /** How many partitions this worker should hold now (see `BrokerParts.partitionShare`); absent: all of them. */
  readonly partitionShare?: () => number | undefined;
  /** Where `[cron]` records its firings for `catch_up = "last"`: NATS KV or a file in the state dir; absent: in memory. */
  readonly cronMarks?: CronMarks;
  readonly onStart?: () => Promise<void>;
  readonly onStopping?: () => Promise<void>;
  readonly onStopped?: () => Promise<void>;
}

/** Wires a broker's parts: the session pool and turn handler (workers), the platform ports (edges), triage and its sweep. */
export function assembleBroker(options: BrokerOptions, assembly: BrokerAssembly): Broker {
  const { config, role, bus, logger } = assembly;
  const env = options.env ?? process.env;
  const version = packageVersion();
  const worker = role !== "edge";
  const state = assembly.state;
  if (worker && state === undefined) throw new Error("a worker needs its state stores");
  const metrics = config.metrics.enabled ? new BrokerMetrics({ role, mode: config.delivery.mode, partitions: config.bus.partitions, version, gateway: role !== "worker" && config.gateway !== undefined, platforms: [...nativePlatforms(config).keys()] }) : undefined;
  const triage = config.triage.enabled && state !== undefined ? { settings: settingsFromConfig(config.triage), store: state.triage } : undefined;
  const history = state?.history === undefined ? undefined : new GroupHistory(state.history, config.inbound.history_limit, logger);
  // Workers run turns on the ACP session pool unless the caller brings its own handler.
  const turns = worker && options.turnHandler === undefined ? sessionPoolTurns(config, { env, logger, version, state, history, metrics }) : undefined;
  const sweep = triage === undefined || !worker ? undefined : triageSweepByLeader(triage.store, assembly.ownership, config.triage, logger).subscribe();
  const ports = role === "worker" ? undefined : platformPorts(config, { logger, version, metrics });
  const sources =
    role === "worker" ? [] : proactiveSources(config, { env, logger, scheduler: options.cronScheduler ?? bus.scheduler, marks: assembly.cronMarks ?? new MemoryCronMarks() });
  const handler = options.turnHandler ?? turns?.turnHandler;
  return new Broker({
    config,
    bus,
    ownsBus: assembly.ownsBus,
    logger,
    pipeline: options.pipeline ?? new Pipeline(),
    role,
    // Any worker may take a cron job's firing, whoever queued it.
    turnHandler: handler === undefined ? undefined : withCronFirings(handler),
    ...(sources.length === 0 ? {} : { sources }),
    ...(state?.ledger === undefined ? {} : { ledger: state.ledger }),
    ...(state === undefined ? (assembly.rates === undefined ? {} : { rates: assembly.rates }) : { rates: state.rates }),
    ...(history === undefined ? {} : { history }),
    ...(triage === undefined || !worker ? {} : { triage }),
    ...(assembly.ownership === undefined ? {} : { ownership: assembly.ownership }),
    ...(assembly.partitionShare === undefined ? {} : { partitionShare: assembly.partitionShare }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(assembly.onStart === undefined && turns?.start === undefined && (ports ?? []).length === 0
      ? {}
      : {
          onStart: async () => {
            // First: a platform that refuses the bot's token stops start-up before agents or leases are taken.
            await preparePorts(ports ?? []);
            await turns?.start?.();
            await assembly.onStart?.();
          },
        }),
    ...(assembly.onStopping === undefined ? {} : { onStopping: assembly.onStopping }),
    ...(ports === undefined ? {} : { ports }),
    ...(assembly.holdReceiver === undefined ? {} : { holdReceiver: assembly.holdReceiver }),
    onStopped: async () => {
      sweep?.unsubscribe();
      await turns?.close();
      await assembly.onStopped?.();
    },
  });
}
