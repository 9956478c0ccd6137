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
    this.debug = this.#logger.isLevelEnabled("debug");
    this.info = this.#logger.isLevelEnabled("info");
    this.error = this.#logger.isLevelEnabled("error");
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
