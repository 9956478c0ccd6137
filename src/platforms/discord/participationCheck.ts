import type { API } from "@discordjs/core";
import type { Logger } from "../../log/logger.js";
import { ExpiringCache } from "./expiringCache.js";
import type { Participation } from "./messageVerdict.js";

/** How many recent messages the check reads: Discord's most per request (upstream asks 200 and gets 100). */
export const PARTICIPATION_FETCH_LIMIT = 100;

/**
 * OpenAB's participation check (§2.5): has this bot posted in the channel or thread, and has
 * another bot? A positive answer is kept (`involved`, with the other-bot flag) for the cache's
 * age limit, so a busy thread costs one fetch; otherwise the recent messages are read. A failed
 * read answers "not involved" (fail-closed, as upstream), logged with a reason.
 */
export class ParticipationCheck {
  readonly #api: API;
  readonly #logger: Logger;
  readonly #involved: ExpiringCache<boolean>;
  readonly #multibot: ExpiringCache<true>;

  constructor(options: { readonly api: API; readonly logger: Logger; readonly involved: ExpiringCache<boolean>; readonly multibot: ExpiringCache<true> }) {
    this.#api = options.api;
    this.#logger = options.logger;
    this.#involved = options.involved;
    this.#multibot = options.multibot;
  }

  /** This bot posted in `channelId` (a reply went there): involved from now on. */
  noteInvolved(channelId: string): void {
    this.#involved.set(channelId, this.#involved.get(channelId) ?? false);
  }

  async check(channelId: string, botId: string): Promise<Participation> {
    const cachedOther = this.#multibot.has(channelId);
    const cached = this.#involved.get(channelId);
    if (cached !== undefined) return { involved: true, otherBot: cached || cachedOther };
    try {
      const messages = await this.#api.channels.getMessages(channelId, { limit: PARTICIPATION_FETCH_LIMIT });
      const involved = messages.some((message) => message.author.id === botId);
      const otherBot = cachedOther || messages.some((message) => message.author.bot === true && message.author.id !== botId);
      if (involved) this.#involved.set(channelId, otherBot);
      return { involved, otherBot };
    } catch (err) {
      this.#logger.warn({ reason: "participation_fetch_failed", channelId, error: (err as Error).message }, "discord participation check failed; rejecting (fail-closed)");
      return { involved: false, otherBot: false };
    }
  }
}
