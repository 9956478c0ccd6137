import {
  API,
  ApplicationCommandType,
  Client,
  ComponentType,
  GatewayDispatchEvents,
  InteractionType,
  MessageFlags,
  type APIChatInputApplicationCommandInteraction,
  type APIInteraction,
  type APIMessageComponentButtonInteraction,
  type GatewayReadyDispatchData,
} from "@discordjs/core";
import { DiscordAPIError, type REST } from "@discordjs/rest";
import { BehaviorSubject, Subject, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { DiscordConfig } from "../../config/sections/discord.js";
import type { Logger } from "../../log/logger.js";
import { SendError } from "../../wire/index.js";
import { BotTurns } from "../botTurns.js";
import { charsPerMessage } from "../charsPerMessage.js";
import type { IngressRules, PlatformPort, SendOptions, SoleReceiver } from "../platformPort.js";
import { AttachmentDownloads } from "./attachmentDownloads.js";
import { botIdOf } from "./botIdOf.js";
import { ChannelDirectory } from "./channelDirectory.js";
import { discordCapabilities } from "./discordCapabilities.js";
import { discordIngress } from "./discordIngress.js";
import { DiscordReplies } from "./discordReplies.js";
import { readerRest, replyRest, stopRest } from "./discordRest.js";
import { DiscordTokenRejectedError } from "./discordTokenRejectedError.js";
import { ExpiringCache } from "./expiringCache.js";
import { GatewaySession } from "./gatewaySession.js";
import { DISCORD } from "./messageEvent.js";
import { MessageIntake } from "./messageIntake.js";
import type { MessageGates } from "./messageVerdict.js";
import { ParticipationCheck } from "./participationCheck.js";
import { SlashIntake } from "./slashIntake.js";
import { TapIntake } from "./tapIntake.js";

export interface DiscordPortOptions {
  readonly config: DiscordConfig;
  readonly logger: Logger;
  /** How long one reply call may take before its outcome is unknown (default 10 s). */
  readonly replyTimeoutMs?: number;
  /** How long a message with a file may take, its upload included (default 60 s; the worker waits 2 min for a file's send). */
  readonly uploadTimeoutMs?: number;
  /** How long one attachment download may take (default 20 s). */
  readonly downloadTimeoutMs?: number;
  /** One IDENTIFY per this many ms (default 5 000, Discord's `max_concurrency` 1). */
  readonly identifyIntervalMs?: number;
  /** Whether the broker's `[stt]` transcribes audio (default true); without it audio messages get 🎤, as upstream. */
  readonly speechToText?: boolean;
  /** How long the "another bot here" and "this bot took part" notes last (upstream: `session_ttl_hours`; default 24 h). */
  readonly memoryTtlMs?: number;
  readonly now?: () => number;
}

const START_CHECK_MS = 15_000;
const READ_TIMEOUT_MS = 15_000;

/**
 * `[discord]`: turnstream's own connection to one Discord bot, as OpenAB's core has one. Built on
 * @discordjs/core's `Client` over @discordjs/ws's `WebSocketManager` and @discordjs/rest's `REST`
 * rather than discord.js: the port needs the gateway's raw events and REST calls, not discord.js's
 * caches of every guild, member and message (memory a broker does not want) nor its own retry of
 * sends (the broker's shaper paces and retries them, and must see a 429 as such); the three
 * packages are what discord.js itself is built on.
 *
 * Messages go through upstream's filter (`MessageIntake`, `messageVerdict`) and become events; a
 * top-level message gets its thread. Slash commands (`SlashIntake`) and taps on the broker's
 * buttons (`TapIntake`) come as interactions and become events too. Replies are REST calls
 * (`DiscordReplies`) that work without the gateway. Discord allows one gateway session per bot to
 * receive, so the gateway is a `receiver` a lease starts and stops (one edge of several receives),
 * keyed by the bot's public id.
 */
export class DiscordPort implements PlatformPort {
  readonly name = DISCORD;
  readonly platforms = [DISCORD];
  readonly ingress: IngressRules = discordIngress();
  readonly events: Observable<GatewayEvent>;
  readonly connected: Observable<boolean>;
  readonly receiver: SoleReceiver;
  readonly #config: DiscordConfig;
  readonly #logger: Logger;
  readonly #reader: REST;
  readonly #writer: REST;
  readonly #uploader: REST;
  readonly #api: API;
  readonly #gateway: GatewaySession;
  readonly #replies: DiscordReplies;
  readonly #intake: MessageIntake;
  readonly #slash: SlashIntake;
  readonly #taps: TapIntake;
  readonly #capabilities = discordCapabilities();
  readonly #events = new Subject<GatewayEvent>();
  readonly #connected = new BehaviorSubject(false);
  #botId: string | undefined;
  /**
   * What `connected` shows: while this edge receives, whether its gateway session is up (READY or
   * RESUMED, and not closed since); otherwise whether the bot answered a REST call (its sends can go out).
   */
  #reachable = false;
  #gatewayUp = false;
  #closed = false;

  constructor(options: DiscordPortOptions) {
    const { config, logger } = options;
    const now = options.now ?? Date.now;
    this.#config = config;
    this.#logger = logger;
    const rest = { apiRoot: config.api_root, token: config.bot_token };
    this.#reader = readerRest({ ...rest, timeoutMs: READ_TIMEOUT_MS });
    this.#writer = replyRest({ ...rest, timeoutMs: options.replyTimeoutMs ?? 10_000 });
    this.#uploader = replyRest({ ...rest, timeoutMs: options.uploadTimeoutMs ?? 60_000 });
    this.#api = new API(this.#reader);
    this.events = this.#events.asObservable();
    this.connected = this.#connected.asObservable();
    const ttlMs = options.memoryTtlMs ?? 24 * 3_600_000;
    const multibot = new ExpiringCache<true>({ ttlMs, now });
    const participation = new ParticipationCheck({ api: this.#api, logger, involved: new ExpiringCache<boolean>({ ttlMs, now }), multibot });
    const channels = new ChannelDirectory(this.#api);
    const gates = gatesOf(config);
    this.#replies = new DiscordReplies(new API(this.#writer), logger, (channelId) => participation.noteInvolved(channelId), new API(this.#uploader));
    const emit = (event: GatewayEvent) => {
      if (!this.#closed) this.#events.next(event);
    };
    this.#intake = new MessageIntake({
      api: this.#api,
      logger,
      gates,
      botTurns: new BotTurns({ maxBotTurns: config.max_bot_turns }),
      multibot,
      participation,
      channels,
      downloads: new AttachmentDownloads({ timeoutMs: options.downloadTimeoutMs ?? 20_000, logger }),
      speechToText: options.speechToText ?? true,
      botId: () => this.#botId,
      emit,
    });
    this.#slash = new SlashIntake({ api: this.#api, logger, gates, channels, botId: () => this.#botId, emit });
    this.#taps = new TapIntake({ api: this.#api, logger, gates, channels, botId: () => this.#botId, emit });
    this.#gateway = new GatewaySession({
      token: config.bot_token,
      rest: this.#reader,
      logger,
      identifyIntervalMs: options.identifyIntervalMs ?? 5_000,
      shown: (up) => {
        this.#gatewayUp = up;
        this.#show();
      },
    });
    const client = new Client({ rest: this.#reader, gateway: this.#gateway.manager });
    client.on(GatewayDispatchEvents.Ready, ({ data }) => void this.#ready(data));
    client.on(GatewayDispatchEvents.MessageCreate, ({ data }) => void this.#intake.take(data));
    client.on(GatewayDispatchEvents.InteractionCreate, ({ data }) => void this.#interaction(data));
    client.on(GatewayDispatchEvents.GuildCreate, ({ data }) => {
      if (!("channels" in data)) return;
      for (const channel of [...data.channels, ...data.threads]) channels.learn(channel);
    });
    client.on(GatewayDispatchEvents.ThreadCreate, ({ data }) => channels.learn(data));
    client.on(GatewayDispatchEvents.ChannelCreate, ({ data }) => channels.learn(data));
    this.receiver = {
      key: `${DISCORD}.${botIdOf(config.bot_token)}`,
      startReceiving: () => this.#startReceiving(),
      stopReceiving: () => this.#stopReceiving(),
    };
  }

  get isConnected(): boolean {
    return this.#connected.value;
  }

  /** The bot's user id, once Discord said it (`GET /users/@me` or READY). */
  get botId(): string | undefined {
    return this.#botId;
  }

  capabilities(platform: string): PlatformCapabilities | undefined {
    return platform === DISCORD ? this.#capabilities : undefined;
  }

  messageLimit(platform: string): number {
    return charsPerMessage(this.capabilities(platform));
  }

  /** Every call is answered by Discord, so `wantAck` changes nothing; `file` is an attachment's bytes. */
  send(message: OutboundMessage, options?: SendOptions): Promise<SendReceipt> {
    if (this.#closed) return Promise.reject(new SendError("disconnected", "the Discord port is closed"));
    return this.#replies.send(message, options?.file);
  }

  /**
   * What start-up checks: the token (`GET /users/@me`; a 401 rejects with upstream's line as a
   * `ConfigError`; anything else is logged and the port keeps going) and what `[discord]` dropped.
   */
  async prepare(): Promise<void> {
    for (const dropped of this.#config.dropped_ids) this.#logger.warn({ reason: "invalid_id", value: dropped.value, label: dropped.label }, "ignoring invalid entry");
    if (!this.#config.allow_all_channels && this.#config.allowed_channels.length === 0) {
      this.#logger.warn({ reason: "no_channels" }, "allow_all_channels=false with empty allowed_channels for Discord — bot will deny all channels");
    }
    try {
      await this.#identify(AbortSignal.timeout(START_CHECK_MS));
    } catch (err) {
      if (err instanceof DiscordAPIError && err.status === 401) throw new DiscordTokenRejectedError({ cause: err });
      this.#logger.warn({ reason: "identify_failed", error: (err as Error).message }, "discord bot not reached at start-up; trying again once started");
    }
  }

  /** Connects the gateway (or, with `receive: false`, only readies sends until a lease starts `receiver`). */
  start(options: { readonly receive?: boolean } = {}): void {
    if (options.receive === false) void this.#identify(AbortSignal.timeout(START_CHECK_MS)).catch(() => undefined);
    else this.receiver.startReceiving();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#intake.close();
    await this.#stopReceiving();
    stopRest(this.#reader);
    stopRest(this.#writer);
    stopRest(this.#uploader);
    this.#connected.next(false);
    this.#events.complete();
  }

  #startReceiving(): void {
    if (this.#closed || this.#gateway.running) return;
    this.#logger.info({ allowAllChannels: this.#config.allow_all_channels, allowAllUsers: this.#config.allow_all_users, channels: this.#config.allowed_channels.length, users: this.#config.allowed_users.length, allowBotMessages: this.#config.allow_bot_messages, allowUserMessages: this.#config.allow_user_messages, allowDm: this.#config.allow_dm }, "discord gateway connecting");
    this.#gateway.start();
  }

  /** Messages already taken finish on their own (their events are still this bot's to queue). */
  async #stopReceiving(): Promise<void> {
    if (!this.#gateway.running) return;
    await this.#gateway.stop();
    this.#show();
    this.#logger.info({ reason: "receiver_stopped" }, "discord gateway disconnected");
  }

  #show(): void {
    if (this.#closed) return;
    const up = this.#gateway.running ? this.#gatewayUp : this.#reachable;
    if (up !== this.#connected.value) this.#connected.next(up);
  }

  async #identify(signal: AbortSignal): Promise<void> {
    if (this.#botId !== undefined) return;
    const me = await this.#api.users.getCurrent({ signal });
    this.#botId = me.id;
    this.#reachable = true;
    this.#show();
    this.#logger.info({ bot: me.username, botId: me.id }, "discord bot identified");
  }

  async #ready(data: GatewayReadyDispatchData): Promise<void> {
    this.#botId = data.user.id;
    this.#reachable = true;
    this.#logger.info({ user: data.user.username, botId: data.user.id, guilds: data.guilds.length }, "discord bot connected");
    await this.#slash.register(data.application.id, data.guilds.map((guild) => guild.id));
  }

  async #interaction(interaction: APIInteraction): Promise<void> {
    if (interaction.type === InteractionType.ApplicationCommand && interaction.data.type === ApplicationCommandType.ChatInput) {
      await this.#slash.take(interaction as APIChatInputApplicationCommandInteraction);
      return;
    }
    // The gateway's payload is untrusted: `data` may be missing whatever the types say.
    if (interaction.type === InteractionType.MessageComponent && (interaction.data as { readonly component_type?: unknown } | undefined)?.component_type === ComponentType.Button) {
      await this.#taps.take(interaction as APIMessageComponentButtonInteraction);
      return;
    }
    if (interaction.type === InteractionType.ApplicationCommandAutocomplete || interaction.type === InteractionType.Ping) return;
    await this.#api.interactions.reply(interaction.id, interaction.token, { content: "⚠️ Not available here.", flags: MessageFlags.Ephemeral }).catch(() => undefined);
  }
}

/** `[discord]`'s gates as the filter reads them. */
export function gatesOf(config: DiscordConfig): MessageGates {
  return {
    allowAllChannels: config.allow_all_channels,
    allowedChannels: new Set(config.allowed_channels),
    allowAllUsers: config.allow_all_users,
    allowedUsers: new Set(config.allowed_users),
    allowBotMessages: config.allow_bot_messages,
    trustedBotIds: new Set(config.trusted_bot_ids),
    allowUserMessages: config.allow_user_messages,
    allowedRoleIds: new Set(config.allowed_role_ids),
    allowDm: config.allow_dm,
  };
}
