import type { Logger } from "../log/logger.js";
import { RefusalTally } from "../log/refusalTally.js";

/** Why the metrics listener turned a client away (the `reason` of its log lines). */
export type RefusalReason = "connection_limit" | "headers_timeout" | "bad_request" | "stalled_client" | "accept_failed";

export const REFUSED_LOG = "metrics client refused";
/** How often a refusal that goes on is summed up in one line. */
export const REFUSAL_SUMMARY_MS = 10_000;

/**
 * The listener's refusals as log lines a flood cannot multiply: one `RefusalTally` per reason, so
 * the first of each reason is a line of its own and the ones after it are one line per reason
 * every 10 s while they go on. A client that can open connections must not fill the logs.
 */
export class RefusalLog {
  readonly #logger: Logger;
  readonly #summaryMs: number;
  readonly #tallies = new Map<RefusalReason, RefusalTally>();

  constructor(logger: Logger, summaryMs = REFUSAL_SUMMARY_MS) {
    this.#logger = logger;
    this.#summaryMs = summaryMs;
  }

  note(reason: RefusalReason, fields?: Readonly<Record<string, unknown>>): void {
    let tally = this.#tallies.get(reason);
    if (tally === undefined) {
      tally = new RefusalTally(this.#logger, { msg: REFUSED_LOG, reason, windowMs: this.#summaryMs });
      this.#tallies.set(reason, tally);
    }
    tally.count(fields);
  }

  /** Writes what is still counted (the listener closes). */
  flush(): void {
    for (const tally of this.#tallies.values()) tally.flush();
  }
}
