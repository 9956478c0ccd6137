import type { Logger } from "../../log/logger.js";
import { botApiFailure } from "./botApiFailure.js";
import { defaultPollBackoff, pollRetry, type PollBackoff, type PollFailureReason } from "./pollRetry.js";

/** The log lines of one kind of retried work (polling, the webhook's set-up). */
export interface EpisodeLines {
  /** Warned once when a run of failures starts, or its reason changes. */
  readonly failed: string;
  /** Noted when the work succeeds again after failing. */
  readonly recovered: string;
}

/**
 * Failures of work retried until it succeeds, logged once per episode: the first failure of a run
 * (and each change of its reason) is a warning with a stable `reason`, the rest are quiet, and the
 * first success after them says how many there were. A rejected token (401) is logged at error
 * each time, a minute apart: nothing works until someone fixes it.
 */
export class RetryEpisodes {
  readonly #logger: Logger;
  readonly #lines: EpisodeLines;
  readonly #backoff: PollBackoff;
  #failing: { reason: PollFailureReason; failures: number } | undefined;

  constructor(logger: Logger, lines: EpisodeLines, backoff: PollBackoff = defaultPollBackoff) {
    this.#logger = logger;
    this.#lines = lines;
    this.#backoff = backoff;
  }

  /** Notes a failure; resolves how long to wait before the next try. */
  failed(err: unknown): number {
    const failure = botApiFailure(err);
    const failures = (this.#failing?.failures ?? 0) + 1;
    const retry = pollRetry(failure, failures, this.#backoff);
    const fields = { reason: retry.reason, retryInMs: retry.delayMs, ...(failure.kind === "refused" ? { status: failure.status } : { code: failure.code }) };
    if (retry.reason === "unauthorized") this.#logger.error(fields, "telegram bot token rejected (401); retrying every minute");
    else if (this.#failing?.reason !== retry.reason) this.#logger.warn(fields, this.#lines.failed);
    this.#failing = { reason: retry.reason, failures };
    return retry.delayMs;
  }

  succeeded(): void {
    if (this.#failing === undefined) return;
    this.#logger.info({ reason: this.#failing.reason, failures: this.#failing.failures }, this.#lines.recovered);
    this.#failing = undefined;
  }
}
