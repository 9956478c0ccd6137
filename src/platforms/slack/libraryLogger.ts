import { LogLevel, type Logger as SlackLogger } from "@slack/web-api";
import type { Logger } from "../../log/logger.js";

/** The longest library text kept in a log line. */
const MAX_DETAIL = 300;

/**
 * The logger handed to `@slack/web-api` and `@slack/socket-mode`: their own lines are interpolated
 * free text (turnstream's lines have constant messages and stable fields), and their debug lines
 * carry request bodies and socket URLs. So their debug and info lines are dropped, and their
 * warnings and errors are kept at debug, as one constant message with the text in `detail`: the
 * adapter logs what matters itself (`slack socket …`, `slack refused a reply`).
 */
export function libraryLogger(logger: Logger, library: string): SlackLogger {
  const keep = (...parts: unknown[]) => logger.debug({ library, detail: parts.map(String).join(" ").slice(0, MAX_DETAIL) }, "slack library reported");
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: keep,
    error: keep,
    setLevel: () => undefined,
    getLevel: () => LogLevel.WARN,
    setName: () => undefined,
  };
}
