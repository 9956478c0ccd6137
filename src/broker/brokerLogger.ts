import { ConfigError, secretValues, type Config } from "../config/index.js";
import { createLogger, resolveLogLevel, type Logger } from "../log/logger.js";

/** A pino logger configured by `[log]` and `LOG_LEVEL`; it masks the config's secrets should any text carry them. */
export function brokerLogger(config: Config, env: NodeJS.ProcessEnv): Logger {
  return createLogger({ level: logLevel(config, env), pretty: config.log.pretty, secrets: secretValues(config) });
}

function logLevel(config: Config, env: NodeJS.ProcessEnv) {
  try {
    return resolveLogLevel(config.log.level, env.LOG_LEVEL);
  } catch (err) {
    throw new ConfigError([{ path: "", message: err instanceof Error ? err.message : String(err) }], { cause: err });
  }
}
