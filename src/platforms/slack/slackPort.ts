import { setTimeout as sleep } from "node:timers/promises";
import { WebClient } from "@slack/web-api";
import { BehaviorSubject, Subject, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { slackAppIdOf, type SlackConfig } from "../../config/sections/slack.js";
import type { Logger } from "../../log/logger.js";
import { charsPerMessage } from "../charsPerMessage.js";
import { ConversationOrder } from "../telegram/conversationOrder.js";
import type { IngressRules, PlatformPort, SendOptions, SoleReceiver } from "../platformPort.js";
import { DisplayNames } from "./displayNames.js";
import { EventIntake, type BotIdentity } from "./eventIntake.js";
import { FileDownloads } from "./fileDownloads.js";
import { libraryLogger } from "./libraryLogger.js";
import { failureDetail, isTokenRejected, slackApiFailure } from "./slackApiFailure.js";
import { slackCapabilities } from "./slackCapabilities.js";
import { slackIngress } from "./slackIngress.js";
import { SLACK } from "./slackMessageEvent.js";
import { SlackReplies } from "./slackReplies.js";
import { DEFAULT_SOCKET_BACKOFF, SocketConnection, type SocketBackoff } from "./socketConnection.js";
import { TapIntake } from "./tapIntake.js";
import { ThreadLookups } from "./threadLookups.js";
import { SlackTokenRejectedError } from "./tokenRejectedError.js";

export interface SlackPortOptions {
  readonly config: SlackConfig;
  readonly logger: Logger;
  /** How long one Web API call may take before its outcome is unknown (default 10 s). */
  readonly callTimeoutMs?: number;
  /** How long each call of a file's upload may take, its bytes' POST included (default 60 s; the worker waits 2 min for a file's send). */
  readonly uploadTimeoutMs?: number;
  /** How long one file download may take (default 20 s). */
  readonly downloadTimeoutMs?: number;
  /** Reconnection and retry delays (default 1 s doubling to 30 s). */
  readonly backoff?: SocketBackoff;
  /** Whether the broker's `[stt]` transcribes audio (default true); without it audio files are not fetched and get 🎤, as upstream. */
  readonly speechToText?: boolean;
  /** How long a thread is remembered as involved or as having another bot (default 24 h; upstream: `session_ttl_hours`). */
  readonly memoryTtlMs?: number;
  /** The clock of the adapter's memories (names, threads, event ids); default `Date.now`. */
  readonly now?: () => number;
}

/**
 * `[slack]`: turnstream's own connection to one Slack app, a platform port beside (or instead of)
 * the OpenAB gateway, as OpenAB's core runs Slack (§3). `prepare` asks `auth.test` who the bot is (a
 * token Slack refuses stops start-up with one line). Events come over Socket Mode
 * (`SocketConnection`: every envelope acknowledged at once, the protocol) and pass upstream's rules
 * in `EventIntake`; each accepted message is one event whose id is Slack's `event_id`, so a Slack
 * retry collapses in the broker's dedupe; a tap on one of the broker's buttons is an event too
 * (`TapIntake`). Replies are Web API calls (`SlackReplies`). Socket Mode would spread events over
 * every open connection of the app, so receiving is a `receiver` a lease starts and stops (one
 * edge of several holds the socket); an edge standing by sends only.
 */
export class SlackPort implements PlatformPort {
  readonly name = SLACK;
  readonly platforms = [SLACK];
  readonly ingress: IngressRules = slackIngress();
  readonly events: Observable<GatewayEvent>;
  readonly connected: Observable<boolean>;
  /** The app's one socket, `slack.<app id>` (the app-level token's public part). */
  readonly receiver: SoleReceiver;
  readonly #config: SlackConfig;
  readonly #logger: Logger;
  readonly #web: WebClient;
  readonly #capabilities: PlatformCapabilities;
  readonly #replies: SlackReplies;
  readonly #intake: EventIntake;
  readonly #taps: TapIntake;
  readonly #socket: SocketConnection;
  readonly #backoff: SocketBackoff;
  readonly #events = new Subject<GatewayEvent>();
  readonly #connected = new BehaviorSubject(false);
  readonly #stop = new AbortController();
  #identity: BotIdentity | undefined;
  #standingBy: Promise<void> | undefined;
  /** What `connected` shows: the socket's health while this edge receives, else whether `auth.test` answered (sends can go out). */
  #receiving = false;
  #socketUp = false;
  #reachable = false;

  constructor(options: SlackPortOptions) {
    const { config, logger } = options;
    const now = options.now ?? Date.now;
    const callTimeoutMs = options.callTimeoutMs ?? 10_000;
    this.#config = config;
    this.#logger = logger;
    this.#backoff = options.backoff ?? DEFAULT_SOCKET_BACKOFF;
    // Every failure reaches the adapter as it happened: no retries inside WebClient (a reply's
    // outcome after a 5xx is unknown, not to be sent again), a 429 as WebAPIRateLimitedError with
    // Retry-After for the broker's shaper to wait out, and a deadline per call.
    const client = (timeout: number) => new WebClient(config.bot_token, { slackApiUrl: config.api_root, logger: libraryLogger(logger, "web-api"), retryConfig: { retries: 0 }, timeout, rejectRateLimitedCalls: true });
    this.#web = client(callTimeoutMs);
    this.#capabilities = slackCapabilities(config);
    this.events = this.#events.asObservable();
    this.connected = this.#connected.asObservable();
    this.#replies = new SlackReplies(this.#web, logger, client(options.uploadTimeoutMs ?? 60_000));
    const names = new DisplayNames(this.#web, logger, now);
    const order = new ConversationOrder();
    this.#intake = new EventIntake({
      config,
      replies: this.#replies,
      threads: new ThreadLookups(this.#web, logger, { now, ...(options.memoryTtlMs === undefined ? {} : { ttlMs: options.memoryTtlMs }) }),
      names,
      downloads: new FileDownloads({ token: config.bot_token, apiRoot: config.api_root, timeoutMs: options.downloadTimeoutMs ?? 20_000, logger }),
      speechToText: options.speechToText ?? true,
      identity: () => this.#identity,
      emit: (event) => this.#events.next(event),
      logger,
      now,
      order,
    });
    this.#taps = new TapIntake({ config, names, order, emit: (event) => this.#events.next(event), logger });
    this.#socket = new SocketConnection({
      appToken: config.app_token,
      apiRoot: config.api_root,
      ready: (signal) => this.#identifyUntilDone(signal),
      payload: (payload) => this.#intake.take(payload),
      interactive: (payload) => this.#taps.take(payload),
      state: (up) => {
        this.#socketUp = up;
        this.#show();
      },
      logger,
      backoff: this.#backoff,
      callTimeoutMs,
    });
    this.receiver = {
      key: `${SLACK}.${slackAppIdOf(config.app_token) ?? "app"}`,
      startReceiving: () => {
        if (this.#stop.signal.aborted) return;
        this.#receiving = true;
        this.#socket.start();
      },
      stopReceiving: async () => {
        await this.#socket.stop();
        this.#receiving = false;
        this.#show();
      },
    };
  }

  get isConnected(): boolean {
    return this.#connected.value;
  }

  /** The bot's user id (`auth.test`), once known: what mentions name. */
  get botUserId(): string | undefined {
    return this.#identity?.userId;
  }

  capabilities(platform: string): PlatformCapabilities | undefined {
    return platform === SLACK ? this.#capabilities : undefined;
  }

  messageLimit(platform: string): number {
    return charsPerMessage(this.capabilities(platform));
  }

  /** Every call is answered by Slack, so `wantAck` changes nothing; `file` is an attachment's bytes. */
  send(message: OutboundMessage, options?: SendOptions): Promise<SendReceipt> {
    return this.#replies.send(message, options?.file);
  }

  /**
   * What start-up checks before the broker runs: the bot token (`auth.test`; an error that says the
   * token is no good rejects with `SlackTokenRejectedError`, anything else is logged and tried again
   * once started). Upstream's warning for a channel list that denies every channel, too.
   */
  async prepare(): Promise<void> {
    const { allow_all_channels: allChannels, allowed_channels: channels } = this.#config;
    if (!allChannels && channels.length === 0) this.#logger.warn({ reason: "no_channel_allowed" }, "slack allows no channel: allow_all_channels = false with an empty allowed_channels");
    try {
      await this.#identify();
    } catch (err) {
      const failure = slackApiFailure(err);
      if (isTokenRejected(failure) && failure.kind === "refused") throw new SlackTokenRejectedError(failure.error, { cause: err });
      this.#logger.warn({ reason: "auth_test_failed", ...failureDetail(failure) }, "slack bot not reached at start-up; trying again once started");
    }
  }

  /** Receives (or, with `receive: false`, stands by until a lease starts `receiver`; sends work either way). */
  start(options: { readonly receive?: boolean } = {}): void {
    if (options.receive === false) this.#standingBy ??= this.#identifyUntilDone(this.#stop.signal).then(() => this.#show(), () => undefined);
    else this.receiver.startReceiving();
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.receiver.stopReceiving(0);
    await this.#standingBy;
    this.#intake.close();
    this.#taps.close();
    this.#connected.next(false);
    this.#events.complete();
  }

  #show(): void {
    const up = this.#receiving ? this.#socketUp : this.#reachable;
    if (up !== this.#connected.value) this.#connected.next(up);
  }

  /** Learns who the bot is once (`auth.test`). */
  async #identify(): Promise<void> {
    if (this.#identity !== undefined) return;
    const me = await this.#web.auth.test();
    if (typeof me.user_id !== "string" || me.user_id === "") throw new Error("auth.test named no bot user");
    this.#identity = { userId: me.user_id, botId: typeof me.bot_id === "string" ? me.bot_id : "" };
    this.#reachable = true;
    this.#logger.info({ user: me.user_id, bot: me.bot_id, team: me.team_id }, "slack bot identified");
  }

  /** `#identify`, tried again after the backoff until it succeeds or `signal` says stop; warned once per run of failures. */
  async #identifyUntilDone(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.#identify();
        return;
      } catch (err) {
        if (signal.aborted) break;
        const failure = slackApiFailure(err);
        if (failures === 0 || isTokenRejected(failure)) this.#logger.warn({ reason: isTokenRejected(failure) ? "bot_token_rejected" : "auth_test_failed", ...failureDetail(failure) }, "slack bot not reached; trying again");
        failures++;
        await sleep(Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** (failures - 1)), undefined, { signal }).catch(() => undefined);
      }
    }
    throw new Error("stopped before the bot was identified");
  }
}

