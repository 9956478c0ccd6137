import { DiscordAPIError, type REST } from "@discordjs/rest";
import { WebSocketManager, WebSocketShardEvents, type SessionInfo } from "@discordjs/ws";
import { GatewayIntentBits } from "@discordjs/core";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../log/logger.js";
import { identifyThrottle } from "./identifyThrottle.js";

/** What the adapter identifies with (§2.2): guild and DM messages, their content, guilds (channels and threads). */
export const DISCORD_INTENTS = GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages | GatewayIntentBits.MessageContent;

export interface GatewaySessionOptions {
  readonly token: string;
  /** The REST client @discordjs/ws asks for `GET /gateway/bot`. */
  readonly rest: REST;
  readonly logger: Logger;
  /** One IDENTIFY per this many ms (Discord's `max_concurrency` 1: 5 s). */
  readonly identifyIntervalMs: number;
  /** The session went up (READY, RESUMED) or down (closed). */
  readonly shown: (up: boolean) => void;
}

/**
 * The bot's one gateway session, as a receiver starts and stops it: connected with a growing pause
 * between tries (1 s doubling to 60 s) until it is, Discord refuses the token, or it is stopped; a
 * close Discord means for good (4004 token, 4014 MESSAGE CONTENT not enabled) is logged in
 * upstream's words and not tried again until the next start. Session info is kept per session
 * (@discordjs/ws's default store is shared by every manager in the process), so a dropped
 * connection resumes. Dispatches reach whoever listens on `manager` (the port's `Client`).
 */
export class GatewaySession {
  readonly manager: WebSocketManager;
  readonly #logger: Logger;
  readonly #shown: (up: boolean) => void;
  readonly #sessions = new Map<number, SessionInfo>();
  /** While running: how to stop, and the connection under way. */
  #running: { readonly stop: AbortController; readonly connected: Promise<void> } | undefined;
  /** Discord closed the gateway for good: not tried again until the next start. */
  #fatalClose = false;
  /** The last stop's teardown, which a new start waits out. */
  #stopping: Promise<void> | undefined;

  constructor(options: GatewaySessionOptions) {
    this.#logger = options.logger;
    this.#shown = options.shown;
    this.manager = new WebSocketManager({
      token: options.token,
      intents: DISCORD_INTENTS,
      rest: options.rest,
      retrieveSessionInfo: (shardId) => this.#sessions.get(shardId) ?? null,
      updateSessionInfo: (shardId, info) => void (info === null ? this.#sessions.delete(shardId) : this.#sessions.set(shardId, info)),
      buildIdentifyThrottler: async () => identifyThrottle(options.identifyIntervalMs),
    });
    this.manager.on(WebSocketShardEvents.Error, (error) => this.#error(error));
    this.manager.on(WebSocketShardEvents.Ready, () => this.#shown(true));
    this.manager.on(WebSocketShardEvents.Resumed, () => this.#shown(true));
    this.manager.on(WebSocketShardEvents.Closed, (code) => {
      this.#logger.info({ reason: "gateway_closed", code }, "discord gateway connection closed");
      this.#shown(false);
    });
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Connects (a no-op while running); the session shows down until READY. */
  start(): void {
    if (this.#running !== undefined) return;
    const stop = new AbortController();
    this.#fatalClose = false;
    this.#running = { stop, connected: this.#connectUntilDone(stop.signal) };
    this.#shown(false);
  }

  /** Stops trying and closes the session; resolves once it is closed. */
  async stop(): Promise<void> {
    const running = this.#running;
    if (running === undefined) return;
    this.#running = undefined;
    running.stop.abort();
    this.#stopping = running.connected.then(() => Promise.resolve(this.manager.destroy({ reason: "receiver stopped" }))).catch(() => undefined);
    await this.#stopping;
    this.#shown(false);
  }

  async #connectUntilDone(signal: AbortSignal): Promise<void> {
    await this.#stopping;
    let pauseMs = 1_000;
    while (!signal.aborted) {
      try {
        await this.manager.connect();
        return;
      } catch (err) {
        if (err instanceof DiscordAPIError && err.status === 401) {
          this.#logger.error({ reason: "token_rejected" }, "Discord rejected bot token. Verify your bot_token in config.toml is correct and has not been reset.");
          return;
        }
        // Logged when Discord closed it (`#error`); trying again would be refused the same way.
        if (this.#fatalClose) return;
        this.#logger.warn({ reason: "connect_failed", error: (err as Error).message, retryInMs: pauseMs }, "discord gateway connection failed");
        await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
        pauseMs = Math.min(pauseMs * 2, 60_000);
      }
    }
  }

  #error(error: Error): void {
    // @discordjs/ws names the fatal closes only in its messages (it then stops: no reconnect).
    if (/disallowed intents/i.test(error.message)) {
      this.#fatalClose = true;
      this.#logger.error({ reason: "disallowed_intents" }, "Discord rejected privileged intents. Enable MESSAGE CONTENT INTENT at: https://discord.com/developers/applications → Bot → Privileged Gateway Intents");
    } else if (/authentication failed/i.test(error.message)) {
      this.#fatalClose = true;
      this.#logger.error({ reason: "token_rejected" }, "Discord rejected bot token. Verify your bot_token in config.toml is correct and has not been reset.");
    } else {
      this.#logger.warn({ reason: "gateway_error", error: error.message }, "discord gateway error");
    }
  }
}
