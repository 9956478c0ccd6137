import type { SchedulerLike } from "rxjs";
import type { Bus } from "../bus/bus.js";
import type { Config, ConfigInput } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { TurnHandler } from "../turn/turn.js";
import type { Role } from "./brokerParts.js";

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
  /**
   * The clock `[cron]` reads its minutes from; default the bus's scheduler (the wall clock). A
   * test or a simulation gives a virtual or faster one.
   */
  readonly cronScheduler?: SchedulerLike;
  /** Environment for `${VAR}` expansion and `LOG_LEVEL`; defaults to `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}
