import type { Logger } from "./logger.js";

/** How often a refusal that keeps happening is logged again, with how many there were meanwhile. */
export const REFUSAL_LOG_WINDOW_MS = 5_000;

export interface RefusalTallyOptions {
  readonly msg: string;
  readonly reason: string;
  /** Stable fields of every line (`endpoint`, `limit`). */
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly windowMs?: number;
}

/**
 * Logs one kind of refusal without letting a flood of them flood the log: the first is logged at
 * once (`count: 1`, with the fields of that refusal), the ones after it within the window are
 * summed into one line at the window's end (`count: n`), so every refusal is counted and a client
 * that is refused a thousand times a second costs a line every few seconds. A window without a
 * refusal ends the episode: the next one is logged at once again.
 */
export class RefusalTally {
  readonly #logger: Logger;
  readonly #options: RefusalTallyOptions;
  #unlogged = 0;
  #window: NodeJS.Timeout | undefined;

  constructor(logger: Logger, options: RefusalTallyOptions) {
    this.#logger = logger;
    this.#options = options;
  }

  /** One refusal; `fields` (what was wrong with this one) are logged only when it is the episode's first. */
  count(fields?: Readonly<Record<string, unknown>>): void {
    if (this.#window !== undefined) {
      this.#unlogged++;
      return;
    }
    this.#log(1, fields);
    this.#open();
  }

  /** Logs what the window holds now (at close). */
  flush(): void {
    clearTimeout(this.#window);
    this.#window = undefined;
    if (this.#unlogged > 0) this.#log(this.#unlogged);
    this.#unlogged = 0;
  }

  #open(): void {
    this.#window = setTimeout(() => {
      this.#window = undefined;
      if (this.#unlogged === 0) return;
      this.#log(this.#unlogged);
      this.#unlogged = 0;
      this.#open();
    }, this.#options.windowMs ?? REFUSAL_LOG_WINDOW_MS);
    this.#window.unref();
  }

  #log(count: number, fields?: Readonly<Record<string, unknown>>): void {
    const { msg, reason, fields: stable } = this.#options;
    this.#logger.warn({ reason, ...stable, ...fields, count }, msg);
  }
}
