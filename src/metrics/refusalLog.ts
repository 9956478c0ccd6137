import type { Logger } from "../log/logger.js";

/** Why the metrics listener turned a client away (the `reason` of its log lines). */
export type RefusalReason = "connection_limit" | "headers_timeout" | "bad_request" | "stalled_client" | "accept_failed";

export const REFUSED_LOG = "metrics client refused";
export const REFUSALS_LOG = "metrics clients refused";
/** How often a refusal that goes on is summed up in one line. */
export const REFUSAL_SUMMARY_MS = 10_000;

/**
 * The listener's refusals as log lines a flood cannot multiply: the first of each reason is a
 * line of its own, and the ones after it are counted and written as one line per reason every
 * 10 s while they go on. A client that can open connections must not be able to fill the logs.
 */
export class RefusalLog {
  readonly #logger: Logger;
  readonly #summaryMs: number;
  /** Per reason with a refusal in the current period: how many since the last line. */
  readonly #counts = new Map<RefusalReason, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(logger: Logger, summaryMs = REFUSAL_SUMMARY_MS) {
    this.#logger = logger;
    this.#summaryMs = summaryMs;
  }

  note(reason: RefusalReason, fields: Record<string, unknown> = {}): void {
    const count = this.#counts.get(reason);
    if (count === undefined) {
      this.#logger.warn({ reason, ...fields }, REFUSED_LOG);
      this.#counts.set(reason, 0);
    } else {
      this.#counts.set(reason, count + 1);
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#summarize(), this.#summaryMs);
      this.#timer.unref();
    }
  }

  /** Writes what is still counted (the listener closes). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [reason, refused] of this.#counts) if (refused > 0) this.#logger.warn({ reason, refused, periodMs: this.#summaryMs }, REFUSALS_LOG);
    this.#counts.clear();
  }

  #summarize(): void {
    this.#timer = undefined;
    let goingOn = false;
    for (const [reason, refused] of this.#counts) {
      if (refused === 0) {
        // A period without a refusal of this reason ends its episode: the next is a first again.
        this.#counts.delete(reason);
        continue;
      }
      this.#logger.warn({ reason, refused, periodMs: this.#summaryMs }, REFUSALS_LOG);
      this.#counts.set(reason, 0);
      goingOn = true;
    }
    if (goingOn) {
      this.#timer = setTimeout(() => this.#summarize(), this.#summaryMs);
      this.#timer.unref();
    }
  }
}
