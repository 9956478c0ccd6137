import { pino, type DestinationStream, type Level, type Logger } from "pino";
import pretty from "pino-pretty";
import { cleanLogFields } from "./logFields.js";
import { secretScrubber } from "./secretScrubber.js";

export type { Logger } from "pino";

export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Human-readable lines instead of JSON (for a terminal, not for log shippers). */
  readonly pretty?: boolean;
  /** Where lines go; stdout by default. */
  readonly destination?: DestinationStream;
  /** Secret values (the config's `secretValues`) masked as "***" wherever they appear in a line. */
  readonly secrets?: readonly string[];
}

/**
 * The broker's logger: JSON lines with a stable `msg` and stable field names (`reason`,
 * `sessionKey`, `event_id`, …), so operators and tests can grep them. `docs/logging.md` lists them.
 * Every line leaves with its string fields bounded and cleaned (`cleanLogFields`), and with URL
 * credentials and the given secret values masked.
 */
export function createLogger({ level, pretty: human = false, destination, secrets = [] }: LoggerOptions): Logger {
  const options = {
    name: "turnstream",
    level,
    formatters: { log: cleanLogFields, bindings: cleanLogFields },
    hooks: { streamWrite: secretScrubber(secrets) },
  };
  // Synchronous pretty stream rather than a transport worker: lines are never lost on exit.
  const stream = human ? pretty({ sync: true, destination: destination ?? 1, translateTime: "SYS:HH:MM:ss.l" }) : destination;
  return withCleanChildBindings(stream === undefined ? pino(options) : pino(options, stream));
}

/**
 * pino applies `formatters.bindings` to the root's bindings only; a child's (`sessionKey`,
 * `event_id` of a turn) are cleaned here. Children inherit from their parent's object, so the one
 * override covers grandchildren too.
 */
function withCleanChildBindings(logger: Logger): Logger {
  const child = logger.child;
  logger.child = function (this: Logger, bindings: Record<string, unknown>, childOptions?: object) {
    return child.call(this, cleanLogFields(bindings), childOptions);
  } as typeof child;
  return logger;
}

/** Synchronous stderr, for a command whose stdout carries a protocol (the `agent` command speaks ACP there). */
export function stderrDestination(): DestinationStream {
  return pino.destination({ fd: 2, sync: true });
}

/** `LOG_LEVEL` from the environment wins over `[log] level`, so a deployment can turn on debug without editing its file. */
export function resolveLogLevel(configured: LogLevel, envValue: string | undefined): LogLevel {
  if (envValue === undefined || envValue.trim() === "") return configured;
  const wanted = envValue.trim().toLowerCase();
  if (!(logLevels as readonly string[]).includes(wanted)) {
    throw new RangeError(
      `LOG_LEVEL: ${JSON.stringify(envValue)} is not allowed; expected one of ${logLevels.join(", ")}`,
    );
  }
  return wanted as LogLevel;
}

export type { Level };
