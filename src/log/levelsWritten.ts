import type { Logger } from "pino";

/**
 * Which of the levels that hot paths build fields for a logger writes, kept up to date: code that
 * builds a line's fields (or reads a clock for them) only when the line will be written asks this
 * instead of pino per event. Re-read whenever the logger's level changes (pino's `level-change`);
 * `close` stops listening.
 */
export class LevelsWritten {
  debug = false;
  info = false;
  error = false;
  readonly #logger: Logger;
  readonly #read = (): void => {
    ({ debug: this.debug, info: this.info, error: this.error } = levelsOf(this.#logger));
  };

  constructor(logger: Logger) {
    this.#logger = logger;
    this.#read();
    logger.on("level-change", this.#read);
  }

  close(): void {
    this.#logger.off("level-change", this.#read);
  }
}

/** Which of those levels `logger` writes now: a snapshot, for code without a `LevelsWritten` to follow changes. */
export function levelsOf(logger: Logger): Pick<LevelsWritten, "debug" | "info" | "error"> {
  return { debug: logger.isLevelEnabled("debug"), info: logger.isLevelEnabled("info"), error: logger.isLevelEnabled("error") };
}
