import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../log/logger.js";
import { displayNameOf, type SlackUserRecord } from "./displayName.js";
import { ExpiringCache } from "./expiringCache.js";
import { failureDetail, slackApiFailure } from "./slackApiFailure.js";

/** How long a looked-up name is kept (upstream: 5 minutes). */
export const DISPLAY_NAME_TTL_MS = 5 * 60_000;
const MAX_NAMES = 10_000;

/**
 * People's names as the agent sees them (§3.8): `users.info`, the first of display name, real name
 * and name, kept 5 minutes. A failed lookup answers the user id and is not kept, so the next message
 * asks again.
 */
export class DisplayNames {
  readonly #web: WebClient;
  readonly #logger: Logger;
  readonly #names: ExpiringCache<string>;

  constructor(web: WebClient, logger: Logger, now: () => number) {
    this.#web = web;
    this.#logger = logger;
    this.#names = new ExpiringCache({ ttlMs: DISPLAY_NAME_TTL_MS, maxEntries: MAX_NAMES, now });
  }

  async of(userId: string): Promise<string> {
    const known = this.#names.get(userId);
    if (known !== undefined) return known;
    try {
      const answer = await this.#web.users.info({ user: userId });
      const name = displayNameOf(answer.user as SlackUserRecord | undefined, userId);
      this.#names.set(userId, name);
      return name;
    } catch (err) {
      this.#logger.debug({ reason: "users_info_failed", ...failureDetail(slackApiFailure(err)) }, "slack display name not found; the user id stands in");
      return userId;
    }
  }
}
