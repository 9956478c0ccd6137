import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../log/logger.js";
import { ExpiringCache } from "./expiringCache.js";
import { failureDetail, slackApiFailure } from "./slackApiFailure.js";
import { participationOf, trailingBotRun, type Participation, type ThreadMessage } from "./threadReplies.js";

/** How long a thread stays known as involved, or as having another bot, by default (upstream keys both to `session_ttl_hours`). */
export const THREAD_MEMORY_MS = 24 * 3_600_000;
/** How many threads each memory keeps (upstream's multibot cache: 1000). */
export const THREAD_MEMORY_ENTRIES = 1000;

/**
 * What the gate reads from a thread (§3.5, §3.3 step 6), through `conversations.replies`, with
 * upstream's memory: a thread found involved is not fetched again (positives only), and a thread
 * where another bot posted is remembered (from a fetch or from that bot's own message). A thread
 * that cannot be read answers `"failed"`: the gate then drops the message (fail-closed), logged
 * once per fetch with Slack's error.
 */
export class ThreadLookups {
  readonly #web: WebClient;
  readonly #logger: Logger;
  readonly #involved: ExpiringCache<true>;
  readonly #otherBot: ExpiringCache<true>;

  constructor(web: WebClient, logger: Logger, options: { readonly now: () => number; readonly ttlMs?: number }) {
    this.#web = web;
    this.#logger = logger;
    const memory = { ttlMs: options.ttlMs ?? THREAD_MEMORY_MS, maxEntries: THREAD_MEMORY_ENTRIES, now: options.now };
    this.#involved = new ExpiringCache(memory);
    this.#otherBot = new ExpiringCache(memory);
  }

  /** Another bot posted in this thread (§3.3 step 2). */
  noteOtherBot(channel: string, threadTs: string): void {
    this.#otherBot.set(keyOf(channel, threadTs), true);
  }

  otherBotKnown(channel: string, threadTs: string): boolean {
    return this.#otherBot.has(keyOf(channel, threadTs));
  }

  /** Whether the bot takes part in the thread, and whether another bot does. */
  async participation(channel: string, threadTs: string, botUserId: string): Promise<Participation | "failed"> {
    const key = keyOf(channel, threadTs);
    if (this.#involved.has(key)) return { involved: true, otherBot: this.#otherBot.has(key) };
    const messages = await this.#replies(channel, threadTs, 200);
    if (messages === undefined) return "failed";
    const found = participationOf(messages, botUserId);
    if (found.involved) this.#involved.set(key, true);
    if (found.otherBot) this.#otherBot.set(key, true);
    return { involved: found.involved, otherBot: found.otherBot || this.#otherBot.has(key) };
  }

  /** How many of the thread's newest messages in a row are bots'. */
  async botRun(channel: string, threadTs: string): Promise<number | "failed"> {
    const messages = await this.#replies(channel, threadTs, 1000);
    return messages === undefined ? "failed" : trailingBotRun(messages);
  }

  async #replies(channel: string, ts: string, limit: number): Promise<ThreadMessage[] | undefined> {
    try {
      const answer = await this.#web.conversations.replies({ channel, ts, limit, inclusive: true });
      return Array.isArray(answer.messages) ? (answer.messages as ThreadMessage[]) : [];
    } catch (err) {
      this.#logger.warn({ reason: "thread_unreadable", channel, ...failureDetail(slackApiFailure(err)) }, "slack thread not read; its message is dropped (fail-closed)");
      return undefined;
    }
  }
}

function keyOf(channel: string, threadTs: string): string {
  return `${channel}:${threadTs}`;
}
