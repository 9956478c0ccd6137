import { setTimeout as sleep } from "node:timers/promises";
import { Api } from "grammy";
import { BehaviorSubject, Subject, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { ConfigError } from "../../config/errors.js";
import { redactUrl } from "../../config/secrets/redactUrl.js";
import type { TelegramConfig } from "../../config/sections/telegram.js";
import type { Logger } from "../../log/logger.js";
import { charsPerMessage } from "../charsPerMessage.js";
import type { IngressRules, PlatformPort, SendOptions, SoleReceiver } from "../platformPort.js";
import { botApiFailure } from "./botApiFailure.js";
import { BotReplies } from "./botReplies.js";
import { BotTokenRejectedError } from "./botTokenRejectedError.js";
import { FileDownloads } from "./fileDownloads.js";
import { grammySignal } from "./grammySignal.js";
import type { PollBackoff } from "./pollRetry.js";
import { RetryEpisodes } from "./retryEpisodes.js";
import { telegramCapabilities } from "./telegramCapabilities.js";
import { telegramIngress } from "./telegramIngress.js";
import { TELEGRAM } from "./updateEvent.js";
import { UpdateIntake } from "./updateIntake.js";
import { ALLOWED_UPDATES, FINAL_CONFIRM_MS, UpdatePoller } from "./updatePoller.js";
import { WebhookListener } from "./webhookListener.js";

export interface TelegramPortOptions {
  readonly config: TelegramConfig;
  readonly logger: Logger;
  /** How long one file download may take, `getFile` included (default 20 s). */
  readonly downloadTimeoutMs?: number;
  /** How long one reply may take, all its calls together, before its outcome is unknown (default `REPLY_CALL_TIMEOUT_MS`, 10 s). */
  readonly replyTimeoutMs?: number;
  /** The same for a reply with a file, its upload included (default `FILE_REPLY_TIMEOUT_MS`, 60 s). */
  readonly fileReplyTimeoutMs?: number;
  /** How long one `getUpdates` waits for an update (default 25 s). */
  readonly pollTimeoutSecs?: number;
  readonly backoff?: PollBackoff;
}

/** How long `getMe` may take at start-up before the broker starts anyway (and the port keeps trying). */
const START_CHECK_MS = 15_000;
/** Every Bot API call's ceiling (grammY's `timeoutSeconds`): above a long poll's wait. */
const CALL_TIMEOUT_SECS = 60;

/**
 * `[telegram]`: turnstream's own connection to one Telegram bot, a platform port beside (or instead
 * of) the OpenAB gateway. Updates come by long polling (`mode = "polling"`, `UpdatePoller`) or by
 * webhook (`WebhookListener`) and become the events OpenAB's gateway would make of them
 * (`readUpdate`), files fetched (`FileDownloads`); an update is confirmed to Telegram only once the
 * edge settled its event. Replies are Bot API calls (`BotReplies`), every one through grammY's `Api`,
 * files uploaded (`FileReplies`).
 * Telegram allows one poller per bot, so polling is also a `receiver` a lease may start and stop
 * (one edge of several polls); an edge standing by sends only.
 */
export class TelegramPort implements PlatformPort {
  readonly name = TELEGRAM;
  readonly platforms = [TELEGRAM];
  readonly ingress: IngressRules;
  readonly events: Observable<GatewayEvent>;
  readonly connected: Observable<boolean>;
  /** Polling mode: the bot's one poller, `telegram.<bot id>` (the token's public part). A webhook needs no election. */
  readonly receiver: SoleReceiver | undefined;
  readonly #config: TelegramConfig;
  readonly #logger: Logger;
  readonly #api: Api;
  readonly #capabilities: PlatformCapabilities;
  readonly #events = new Subject<GatewayEvent>();
  readonly #connected = new BehaviorSubject(false);
  readonly #replies: BotReplies;
  readonly #intake: UpdateIntake;
  readonly #poller: UpdatePoller | undefined;
  readonly #webhook: WebhookListener | undefined;
  readonly #backoff: PollBackoff | undefined;
  readonly #stop = new AbortController();
  #username: string | undefined;
  #setUp: Promise<void> | undefined;
  /** What `connected` shows: the poll's health while this edge polls, else whether the bot answered `getMe` (its sends can go out). */
  #polling = false;
  #pollUp = false;
  #reachable = false;

  constructor(options: TelegramPortOptions) {
    const { config, logger } = options;
    this.#config = config;
    this.#logger = logger;
    this.#backoff = options.backoff;
    this.#api = new Api(config.bot_token, { apiRoot: config.api_root, timeoutSeconds: CALL_TIMEOUT_SECS });
    this.#capabilities = telegramCapabilities(config);
    this.ingress = telegramIngress(config, () => this.#username);
    this.events = this.#events.asObservable();
    this.connected = this.#connected.asObservable();
    this.#replies = new BotReplies(this.#api, logger, { richMessages: config.rich_messages, timeoutMs: options.replyTimeoutMs, fileTimeoutMs: options.fileReplyTimeoutMs });
    const downloads = new FileDownloads({ api: this.#api, apiRoot: config.api_root, token: config.bot_token, timeoutMs: options.downloadTimeoutMs ?? 20_000, logger });
    this.#intake = new UpdateIntake({ downloads, emit: (event) => this.#events.next(event), logger });
    const take = (update: Parameters<UpdateIntake["take"]>[0]) => this.#intake.take(update);
    if (config.mode === "polling") {
      this.#poller = new UpdatePoller({
        api: this.#api,
        logger,
        prepare: (signal) => this.#preparePolling(signal),
        take,
        connected: (up) => {
          this.#pollUp = up;
          this.#show();
        },
        ...(options.pollTimeoutSecs === undefined ? {} : { pollTimeoutSecs: options.pollTimeoutSecs }),
        ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      });
    }
    this.receiver = this.#poller === undefined ? undefined : this.#pollingReceiver(this.#poller);
    if (this.#poller === undefined) {
      this.#webhook = new WebhookListener({
        listen: config.webhook_listen ?? "0.0.0.0:8080",
        path: config.webhook_path,
        secretToken: config.secret_token,
        trustedSourceOnly: config.trusted_source_only,
        take,
        accepting: () => this.#username !== undefined,
        logger,
      });
    }
  }

  get isConnected(): boolean {
    return this.#connected.value;
  }

  /** The bot's username (`getMe`), once known: what group messages must @mention. */
  get botUsername(): string | undefined {
    return this.#username;
  }

  /** The webhook listener's `http://host:port` (webhook mode, once prepared). */
  get webhookUrl(): string | undefined {
    return this.#webhook?.url;
  }

  capabilities(platform: string): PlatformCapabilities | undefined {
    return platform === TELEGRAM ? this.#capabilities : undefined;
  }

  messageLimit(platform: string): number {
    return charsPerMessage(this.capabilities(platform));
  }

  send(message: OutboundMessage, options?: SendOptions): Promise<SendReceipt> {
    return this.#replies.send(message, options?.file);
  }

  settled(event: GatewayEvent): void {
    this.#intake.settled(event);
  }

  /**
   * What start-up checks before the broker runs: the token (`getMe`; a 401 rejects with
   * `BotTokenRejectedError`, whatever else goes wrong is logged and tried again once started) and,
   * in webhook mode, that the listener can bind (`ConfigError` naming `telegram.webhook_listen`).
   */
  async prepare(): Promise<void> {
    try {
      await this.#identify(AbortSignal.timeout(START_CHECK_MS));
    } catch (err) {
      const failure = botApiFailure(err);
      if (failure.kind === "refused" && failure.status === 401) throw new BotTokenRejectedError({ cause: err });
      this.#logger.warn({ reason: "get_me_failed", ...(failure.kind === "refused" ? { status: failure.status } : { code: failure.code }) }, "telegram bot not reached at start-up; trying again once started");
    }
    if (this.#webhook === undefined) return;
    try {
      await this.#webhook.listen();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new ConfigError([{ path: "telegram.webhook_listen", message: `${this.#config.webhook_listen ?? ""} cannot be listened on${typeof code === "string" ? ` (${code})` : ""}` }], { cause: err });
    }
    this.#logger.info({ url: this.#webhook.url, path: this.#config.webhook_path }, "telegram webhook listening");
    // Upstream's warning: without the secret, anyone who finds the URL can post updates as any user.
    if (this.#config.secret_token === undefined) this.#logger.warn({ reason: "secret_token_unset" }, "telegram webhook requests are not validated (no [telegram] secret_token)");
  }

  /** Polls (or, with `receive: false`, stands by until a lease starts `receiver`); in webhook mode, sets the webhook up. */
  start(options: { readonly receive?: boolean } = {}): void {
    if (this.#poller === undefined) this.#setUp ??= this.#setUpWebhook(this.#stop.signal);
    else if (options.receive === false) this.#setUp ??= this.#standBy(this.#stop.signal);
    else this.receiver?.startReceiving();
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.receiver?.stopReceiving(FINAL_CONFIRM_MS);
    await this.#setUp;
    await this.#webhook?.close();
    this.#intake.close();
    this.#connected.next(false);
    this.#events.complete();
  }

  #pollingReceiver(poller: UpdatePoller): SoleReceiver {
    return {
      key: `${TELEGRAM}.${botIdOf(this.#config.bot_token)}`,
      startReceiving: () => {
        if (this.#stop.signal.aborted) return;
        // Shown as before until the first poll (asked with no wait) says how polling goes.
        this.#pollUp = this.#reachable;
        this.#polling = true;
        poller.start();
      },
      stopReceiving: async (withinMs) => {
        await poller.stop(withinMs);
        this.#polling = false;
        this.#show();
      },
    };
  }

  #show(): void {
    const up = this.#polling ? this.#pollUp : this.#reachable;
    if (up !== this.#connected.value) this.#connected.next(up);
  }

  /** Learns the bot's username once (`getMe`). */
  async #identify(signal: AbortSignal): Promise<void> {
    if (this.#username !== undefined) return;
    const me = await this.#api.getMe(grammySignal(signal));
    this.#username = me.username;
    this.#reachable = true;
    this.#logger.info({ bot: me.username, botId: me.id }, "telegram bot identified");
  }

  /** Before polling: the bot known, and no webhook set (while one is, `getUpdates` answers 409). */
  async #preparePolling(signal: AbortSignal): Promise<void> {
    await this.#identify(signal);
    const webhook = await this.#api.getWebhookInfo(grammySignal(signal));
    if (webhook.url === "") return;
    await this.#api.deleteWebhook({}, grammySignal(signal));
    this.#logger.warn({ reason: "webhook_set" }, "telegram webhook removed: this bot polls ([telegram] mode = \"polling\")");
  }

  /** Standing by (polling mode, another edge polls): connected once the bot answered `getMe`, retried until it does. */
  async #standBy(signal: AbortSignal): Promise<void> {
    const episodes = new RetryEpisodes(this.#logger, { failed: "telegram bot not reached", recovered: "telegram bot reached" }, this.#backoff);
    while (!signal.aborted) {
      try {
        await this.#identify(signal);
        episodes.succeeded();
        this.#show();
        return;
      } catch (err) {
        if (signal.aborted) return;
        await sleep(episodes.failed(err), undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** Webhook mode, once started: the bot known and the webhook registered (when `webhook_url` says where), retried until done. */
  async #setUpWebhook(signal: AbortSignal): Promise<void> {
    const episodes = new RetryEpisodes(this.#logger, { failed: "telegram webhook set-up failed", recovered: "telegram webhook set-up recovered" }, this.#backoff);
    const { webhook_url: url, secret_token: secretToken } = this.#config;
    while (!signal.aborted) {
      try {
        await this.#identify(signal);
        if (url !== undefined) {
          await this.#api.setWebhook(url, { ...(secretToken === undefined ? {} : { secret_token: secretToken }), allowed_updates: [...ALLOWED_UPDATES] }, grammySignal(signal));
          this.#logger.info({ url: redactUrl(url) }, "telegram webhook registered");
        } else {
          this.#logger.info({ reason: "no_webhook_url", path: this.#config.webhook_path }, "telegram webhook not registered by turnstream (no webhook_url): register it with setWebhook");
        }
        episodes.succeeded();
        this.#connected.next(true);
        return;
      } catch (err) {
        if (signal.aborted) return;
        await sleep(episodes.failed(err), undefined, { signal }).catch(() => undefined);
      }
    }
  }
}

/** The bot's id: the token's digits before `:`, public (the bot's user id); what follows is the secret. */
function botIdOf(token: string): string {
  return /^(\d+):/.exec(token)?.[1] ?? "0";
}
