import { createLogger, type Logger } from "../../src/log/logger.js";

export interface LogRecord {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A real pino logger writing JSON lines into memory, for asserting stable `msg` and fields. */
export function captureLogs(level: "debug" | "info" = "debug"): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const destination = { write: (line: string) => void records.push(JSON.parse(line) as LogRecord) };
  return { logger: createLogger({ level, destination }), records };
}
