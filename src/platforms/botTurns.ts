/**
 * Bot-to-bot turn limits (OpenAB's `bot_turns.rs`, §2.6), shared by `[discord]` and `[slack]`.
 * Per key (Discord: the channel or thread id; Slack: the thread) two counters, `soft` and `hard`,
 * both incremented on every bot message (this bot's own included) and both reset by a human's
 * message. After incrementing, in this order: hard above the cap → silent stop; hard at the cap →
 * warn and stop (🛑); soft above `max_bot_turns` → silent stop; soft at it → warn and stop (⚠️);
 * else continue. The hard cap is upstream's compiled constant, 100, so `max_bot_turns` ≥ 100
 * behaves as 100 and its default (100) gives the hard text; `max_bot_turns = 0` stops every bot
 * message silently.
 *
 * Bounded: at most `maxKeys` keys are kept (default 10 000), least recently counted first out. A
 * human's message deletes its key (both counters 0 is the absent state), so only threads where
 * bots talk take room; an evicted thread starts again from 0, which costs at most another
 * `max_bot_turns` bot messages there — upstream's map is unbounded, a broker's memory is not.
 */

/** Upstream's `HARD_BOT_TURN_LIMIT`. */
export const HARD_BOT_TURN_LIMIT = 100;
export const DEFAULT_MAX_TRACKED_KEYS = 10_000;

/** What one bot message does to its key's counters (upstream's `TurnResult`). */
export type BotTurnCount =
  | { readonly kind: "ok" }
  | { readonly kind: "soft-limit"; readonly turns: number }
  | { readonly kind: "throttled" }
  | { readonly kind: "hard-limit" }
  | { readonly kind: "stopped" };

/** What the adapter does with a bot message (upstream's `TurnAction`). */
export type BotTurnVerdict =
  | { readonly action: "continue" }
  | { readonly action: "warn-and-stop"; readonly limit: "soft" | "hard"; readonly turns: number; readonly text: string }
  | { readonly action: "silent-stop" };

export function softLimitText(turns: number, max: number): string {
  return `⚠️ Bot turn limit reached (${turns}/${max}). A human must reply in this thread to continue bot-to-bot conversation.`;
}

export const HARD_LIMIT_TEXT = `🛑 Hard bot turn limit reached (${HARD_BOT_TURN_LIMIT}). A human must reply to continue.`;

interface Counters {
  soft: number;
  hard: number;
}

export class BotTurns {
  readonly #max: number;
  readonly #maxKeys: number;
  readonly #counters = new Map<string, Counters>();

  constructor(options: { readonly maxBotTurns: number; readonly maxKeys?: number }) {
    this.#max = options.maxBotTurns;
    this.#maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_TRACKED_KEYS);
  }

  /** How many keys hold counters now. */
  get size(): number {
    return this.#counters.size;
  }

  /** Counts one bot message under `key`. */
  count(key: string): BotTurnCount {
    const counters = this.#counters.get(key) ?? { soft: 0, hard: 0 };
    // Re-inserted, so the Map's order is least recently counted first.
    this.#counters.delete(key);
    this.#counters.set(key, counters);
    this.#evictOver();
    counters.soft += 1;
    counters.hard += 1;
    if (counters.hard > HARD_BOT_TURN_LIMIT) return { kind: "stopped" };
    if (counters.hard === HARD_BOT_TURN_LIMIT) return { kind: "hard-limit" };
    if (counters.soft > this.#max) return { kind: "throttled" };
    if (counters.soft === this.#max) return { kind: "soft-limit", turns: counters.soft };
    return { kind: "ok" };
  }

  /** Counts one bot message under `key` and says what to do with it. */
  classify(key: string): BotTurnVerdict {
    return verdictOf(this.count(key), this.#max);
  }

  /** A human's qualifying message: both counters of `key` back to 0. */
  humanMessage(key: string): void {
    this.#counters.delete(key);
  }

  #evictOver(): void {
    for (const key of this.#counters.keys()) {
      if (this.#counters.size <= this.#maxKeys) return;
      this.#counters.delete(key);
    }
  }
}

/** Upstream's `classify`: a count as an action, with the warning text to post. */
export function verdictOf(count: BotTurnCount, maxBotTurns: number): BotTurnVerdict {
  switch (count.kind) {
    case "ok":
      return { action: "continue" };
    case "soft-limit":
      return { action: "warn-and-stop", limit: "soft", turns: count.turns, text: softLimitText(count.turns, maxBotTurns) };
    case "hard-limit":
      return { action: "warn-and-stop", limit: "hard", turns: HARD_BOT_TURN_LIMIT, text: HARD_LIMIT_TEXT };
    case "throttled":
    case "stopped":
      return { action: "silent-stop" };
  }
}
