import { setTimeout as sleep } from "node:timers/promises";
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import type { Logger } from "../../log/logger.js";
import { botApiFailure } from "./botApiFailure.js";
import { grammySignal } from "./grammySignal.js";
import { confirmableOffset, type PollBackoff } from "./pollRetry.js";
import { RetryEpisodes } from "./retryEpisodes.js";

/**
 * The updates turnstream asks Telegram for: new messages, and taps on the bot's buttons (a question
 * asked in the chat); edits, channel posts and the rest are not turns.
 */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** How long one `getUpdates` waits for an update (Telegram holds the request open up to this). */
export const POLL_TIMEOUT_SECS = 25;
/** How long the last confirmation at stop may take, unless the caller allows less. */
export const FINAL_CONFIRM_MS = 5_000;

export interface UpdatePollerOptions {
  readonly api: Api;
  readonly logger: Logger;
  /** Before polling, and again after it failed: learn the bot (`getMe`), remove a webhook. Rejects to be retried. */
  readonly prepare: (signal: AbortSignal) => Promise<void>;
  /** Takes one update: resolves `true` once its event was settled, `false` when it was not (do not confirm). */
  readonly take: (update: Update) => Promise<boolean>;
  /** Polling works (`true`) or is failing. */
  readonly connected: (up: boolean) => void;
  readonly pollTimeoutSecs?: number;
  readonly backoff?: PollBackoff;
}

/** One run of the loop, from `start()` to its `stop()`. */
interface PollRun {
  readonly stop: AbortController;
  readonly done: Promise<void>;
  stopping?: Promise<void>;
}

/**
 * Long polling, as a unit that starts and stops (a lease may hold it on one edge of several).
 *
 * turnstream's own loop rather than grammY's `bot.start()`: grammY confirms an update's offset as
 * soon as that update's middleware returns, and the edge settles events later (once durably
 * queued), so its runner cannot wait for that. Here each batch of `getUpdates` is taken whole, and
 * its offset — the next call's `offset`, which is how Telegram hears the batch arrived — goes out
 * only once every event of it was settled: a broker killed mid-batch gets the unconfirmed updates
 * again, and the turn stream's msg-id collapses what it had queued. Every call still goes through
 * grammY's `Api`.
 */
export class UpdatePoller {
  readonly #options: UpdatePollerOptions;
  #run: PollRun | undefined;
  /** The offset the next `getUpdates` sends: every update below it is settled. */
  #next: number | undefined;
  /** The offset Telegram last heard: every update below it is confirmed. */
  #confirmed: number | undefined;
  readonly #episodes: RetryEpisodes;

  constructor(options: UpdatePollerOptions) {
    this.#options = options;
    this.#episodes = new RetryEpisodes(options.logger, { failed: "telegram polling failed", recovered: "telegram polling recovered" }, options.backoff);
  }

  get polling(): boolean {
    return this.#run !== undefined;
  }

  start(): void {
    if (this.#run !== undefined) return;
    const stop = new AbortController();
    this.#run = { stop, done: this.#loop(stop.signal) };
  }

  /**
   * Ends the poll under way at once and waits for the loop; then confirms what was settled since
   * the last poll (a `getUpdates` that reads nothing new), so a restart is not handed those updates
   * again — within `withinMs`, after which another poller may start (a lease's holder that lost it),
   * or not at all when 0: the next poller is handed them, and their msg-ids collapse them. A stop
   * during a stop waits for the same one.
   */
  stop(withinMs = FINAL_CONFIRM_MS): Promise<void> {
    const run = this.#run;
    if (run === undefined) return Promise.resolve();
    run.stopping ??= this.#stop(run, withinMs);
    return run.stopping;
  }

  async #stop(run: PollRun, withinMs: number): Promise<void> {
    run.stop.abort();
    await run.done;
    this.#options.connected(false);
    try {
      await this.#confirmSettled(withinMs);
    } finally {
      // Only now may a start poll again: never beside this last confirmation.
      this.#run = undefined;
    }
  }

  async #confirmSettled(withinMs: number): Promise<void> {
    const offset = this.#next;
    if (offset === undefined || offset === this.#confirmed || withinMs <= 0) return;
    try {
      await this.#options.api.getUpdates({ offset, limit: 1, timeout: 0, allowed_updates: [...ALLOWED_UPDATES] }, grammySignal(AbortSignal.timeout(Math.min(withinMs, FINAL_CONFIRM_MS))));
      this.#confirmed = offset;
    } catch (err) {
      const failure = botApiFailure(err);
      this.#options.logger.warn({ reason: "final_confirm_failed", ...(failure.kind === "refused" ? { status: failure.status } : { code: failure.code }) }, "telegram updates settled at stop not confirmed; they come again at the next start");
    }
  }

  async #loop(signal: AbortSignal): Promise<void> {
    const { api, prepare, connected } = this.#options;
    let prepared = false;
    // Until a poll succeeds (at start, after a failure) it asks with no wait, so a working
    // connection is known at once rather than after a long poll's quiet `timeout`.
    let healthy = false;
    while (!signal.aborted) {
      try {
        if (!prepared) {
          await prepare(signal);
          prepared = true;
        }
        const asked = this.#next;
        const updates = await api.getUpdates(
          { ...(asked === undefined ? {} : { offset: asked }), timeout: healthy ? (this.#options.pollTimeoutSecs ?? POLL_TIMEOUT_SECS) : 0, allowed_updates: [...ALLOWED_UPDATES] },
          grammySignal(signal),
        );
        this.#confirmed = asked;
        this.#episodes.succeeded();
        healthy = true;
        connected(true);
        if (updates.length > 0) await this.#batch(updates, signal);
      } catch (err) {
        if (signal.aborted) return;
        healthy = false;
        connected(false);
        // After a 401 or a 409 the bot and its webhook are looked at again before the next poll.
        prepared = false;
        await sleep(this.#episodes.failed(err), undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** Takes a batch and waits until each of its events settled (or the poller stops), then moves the offset past what settled. */
  async #batch(updates: readonly Update[], signal: AbortSignal): Promise<void> {
    const settled = new Set<number>();
    const all = Promise.all(updates.map((update) => this.#options.take(update).then((ok) => ok && settled.add(update.update_id))));
    let onStop!: () => void;
    const stopped = new Promise<void>((resolve) => signal.addEventListener("abort", (onStop = () => resolve()), { once: true }));
    try {
      await Promise.race([all, stopped]);
    } finally {
      signal.removeEventListener("abort", onStop);
    }
    this.#next = confirmableOffset(
      updates.map((update) => update.update_id),
      settled,
    );
  }
}
