import type { APIChannel } from "@discordjs/core";
import { channelObject } from "./apiObjects.js";
import { ApplicationCommands, commandRoutes, type RegisteredCommand } from "./applicationCommands.js";
import { CallLog, type RecordedCall } from "./callLog.js";
import { Cdn } from "./cdn.js";
import { Channels } from "./channels.js";
import { Directory, type FakeEmoji, type FakeGuild, type FakeMember, type FakeRole, type FakeUser } from "./directory.js";
import { FailureInjection, type InjectedFailure } from "./failureInjection.js";
import { BotGateway } from "./botGateway.js";
import { GATEWAY_PATH, RESUME_GATEWAY_PATH } from "./gatewayServer.js";
import { GatewaySessions } from "./gatewaySessions.js";
import { DiscordHttpServer } from "./httpServer.js";
import { INTENT } from "./intents.js";
import { interactionRoutes } from "./interactionRoutes.js";
import { Interactions, type InteractionRecord } from "./interactions.js";
import { lookupRoutes } from "./lookupRoutes.js";
import { messageRoutes } from "./messageRoutes.js";
import type { BotPermissions } from "./permissions.js";
import { RateLimits, type BucketRule } from "./rateLimits.js";
import { reactionRoutes } from "./reactionRoutes.js";
import { answerRest } from "./restRouter.js";
import { shownMessages, threadView, type ShownMessage, type ThreadView } from "./shownMessages.js";
import { Snowflakes } from "./snowflakes.js";
import { threadRoutes } from "./threadRoutes.js";
import { UserActor } from "./userActor.js";
import { UPLOAD_LIMIT_BYTES } from "./uploads.js";
import type { World } from "./world.js";

export interface FakeDiscordOptions {
  /** The one bot token the fake accepts (`Authorization: Bot <token>`, IDENTIFY, RESUME). */
  readonly token: string;
  readonly bot: { readonly id: string; readonly username: string; readonly global_name?: string };
  /** The bot's application id (default: the bot's id, as for every bot made since 2018). */
  readonly applicationId?: string;
  /** Privileged intents enabled in the Developer Portal (default MESSAGE_CONTENT only). */
  readonly privilegedIntents?: number;
  /** HELLO's heartbeat_interval (default 41 250 ms, Discord's). */
  readonly heartbeatIntervalMs?: number;
  /** One IDENTIFY per this window (max_concurrency 1; default 5 000 ms, Discord's); a faster one gets op 9. */
  readonly identifyIntervalMs?: number;
  /** How long a dropped session stays resumable (default 120 s; Discord: "a few minutes"). */
  readonly resumeWindowMs?: number;
  /** How long the bot has to answer an interaction (default 3 000 ms, Discord's). */
  readonly interactionResponseMs?: number;
  /** The largest file a message may upload (default 10 MiB, a server without boosts; boosts raise it to 50 or 100 MiB). */
  readonly uploadLimitBytes?: number;
  readonly now?: () => number;
}

/**
 * Discord for tests, on 127.0.0.1: REST v10 (`fake.api` is @discordjs/rest's `api` option; GET /gateway/bot
 * points clients at the fake's gateway), the gateway v10 in JSON, a CDN for attachments; guilds, channels,
 * threads, DMs, users, roles and emoji a test sets up, users acting in them (`fake.from(user)`), what each
 * channel shows read back, every REST call logged, failures and rate limits injected. Requests are checked
 * as Discord documents them and refused in Discord's JSON (`{code, message, errors}`). Never contacts discord.com.
 */
export class FakeDiscord {
  readonly log = new CallLog();
  readonly failures = new FailureInjection();
  readonly rateLimits: RateLimits;
  readonly interactions = new Interactions();
  readonly commands = new ApplicationCommands();
  /** The bot's gateway sessions and connections, and what a test does to them (`fake.gateway.reconnect()`, …). */
  readonly gateway: BotGateway;
  readonly world: World;
  private server: DiscordHttpServer | undefined;
  private readonly now: () => number;

  private constructor(readonly options: FakeDiscordOptions) {
    this.now = options.now ?? Date.now;
    const ids = new Snowflakes(this.now);
    const bot: FakeUser = { id: options.bot.id, username: options.bot.username, global_name: options.bot.global_name ?? null, bot: true };
    this.rateLimits = new RateLimits(this.now);
    this.world = {
      bot,
      applicationId: options.applicationId ?? bot.id,
      ids,
      directory: new Directory(bot, ids, this.now),
      channels: new Channels(ids, this.now),
      cdn: new Cdn(() => this.origin, this.now),
      sessions: new GatewaySessions(options.resumeWindowMs ?? 120_000, this.now),
      uploadLimitBytes: options.uploadLimitBytes ?? UPLOAD_LIMIT_BYTES,
      privilegedIntents: options.privilegedIntents ?? INTENT.MESSAGE_CONTENT,
      now: this.now,
    };
    this.gateway = new BotGateway(this.world, {
      token: options.token,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      identifyIntervalMs: options.identifyIntervalMs ?? 5_000,
      resumeGatewayUrl: () => this.resumeGatewayUrl,
      tokenRevoked: () => this.failures.tokenRevoked,
    });
  }

  static async start(options: FakeDiscordOptions): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options);
    const world = fake.world;
    const routes = [
      ...lookupRoutes(world, () => ({ url: fake.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 1000 - fake.gateway.identifies, reset_after: 86_400_000, max_concurrency: 1 } })),
      ...messageRoutes(world),
      ...reactionRoutes(world),
      ...threadRoutes(world),
      ...commandRoutes(world, fake.commands),
      ...interactionRoutes(world, fake.interactions, () => options.interactionResponseMs ?? 3_000),
    ];
    fake.server = await DiscordHttpServer.listen({
      rest: (request) =>
        answerRest(
          { routes, log: fake.log, failures: fake.failures, rateLimits: fake.rateLimits, now: fake.now, authorized: (header) => header === `Bot ${options.token}` && !fake.failures.tokenRevoked },
          request,
        ),
      cdn: (path, query) => world.cdn.download(path, query),
      upgrade: (request, socket, head) => fake.gateway.server.handleUpgrade(request, socket, head),
    });
    return fake;
  }

  /** `http://127.0.0.1:<port>`: the fake's one port (REST, CDN, gateway). */
  get origin(): string {
    if (!this.server) throw new Error("fake Discord: not started");
    return this.server.origin;
  }

  /** @discordjs/rest's `api` option: `new REST({ api: fake.api })` then requests `${api}/v10/...`. */
  get api(): string {
    return `${this.origin}/api`;
  }

  /** The gateway URL GET /gateway/bot answers with; a client appends `?v=10&encoding=json`. */
  get gatewayUrl(): string {
    return `${this.origin.replace("http://", "ws://")}${GATEWAY_PATH}`;
  }

  /** READY's resume_gateway_url: a distinct path, so a test sees whether a client resumed where it was told. */
  get resumeGatewayUrl(): string {
    return `${this.origin.replace("http://", "ws://")}${RESUME_GATEWAY_PATH}`;
  }

  get bot(): FakeUser {
    return this.world.bot;
  }

  // ── Who and where ────────────────────────────────────────────────────────────────────────────────

  addUser(user: { id?: string; username: string; global_name?: string | null; bot?: boolean }): FakeUser {
    return this.world.directory.addUser(user);
  }

  addGuild(options: { name: string; id?: string; ownerId?: string }): FakeGuild {
    return this.world.directory.addGuild(options);
  }

  addRole(guildId: string, options: { name: string; mentionable?: boolean; id?: string }): FakeRole {
    return this.world.directory.addRole(guildId, options);
  }

  addMember(guildId: string, userId: string, options: { nick?: string | null; roles?: string[] } = {}): FakeMember {
    return this.world.directory.addMember(guildId, userId, options);
  }

  addEmoji(guildId: string, name: string): FakeEmoji {
    return this.world.directory.addEmoji(guildId, name);
  }

  /** A text channel (or `type`: category 4, announcement 5, forum 15), optionally under a category. */
  addChannel(guildId: string, name: string, options: { type?: number; parentId?: string; permissions?: Partial<BotPermissions> } = {}): APIChannel {
    this.world.directory.knownGuild(guildId);
    return channelObject(this.world.channels.addGuildChannel(guildId, { name, ...options }), this.world);
  }

  /** The DM channel between the bot and a user. */
  dmWith(userId: string): APIChannel {
    return channelObject(this.world.channels.dmWith(userId), this.world);
  }

  /** Changes what the bot may do in a channel (its threads follow): a permission overwrite, in effect. */
  restrict(channelId: string, permissions: Partial<BotPermissions>): void {
    const channel = this.world.channels.known(channelId);
    channel.permissions = { ...channel.permissions, ...permissions };
  }

  /** A user's (or another bot's) side of Discord. */
  from(user: FakeUser): UserActor {
    return new UserActor(user, { world: this.world, interactions: this.interactions, commands: this.commands });
  }

  // ── Read back ────────────────────────────────────────────────────────────────────────────────────

  /** What a channel (or thread, or DM) shows now: messages still there, edits applied, the bot's reactions. */
  shown(channelId: string): ShownMessage[] {
    const channel = this.world.channels.find(channelId);
    return channel ? shownMessages(this.world, channel) : [];
  }

  /** The contents of the bot's messages a channel shows now, oldest first. */
  botTexts(channelId: string): string[] {
    return this.shown(channelId).filter((message) => message.fromBot).map((message) => message.content);
  }

  /** Threads, under one parent or all, oldest first. */
  threads(parentId?: string): ThreadView[] {
    return this.world.channels
      .all()
      .filter((channel) => channel.thread && (parentId === undefined || channel.parentId === parentId))
      .map(threadView);
  }

  /** The slash commands registered globally, or in a guild. */
  registeredCommands(guildId?: string): readonly RegisteredCommand[] {
    return guildId === undefined ? this.commands.global : (this.commands.byGuild.get(guildId) ?? []);
  }

  interaction(id: string): InteractionRecord | undefined {
    return this.interactions.byId.get(id);
  }

  /** Every REST request, oldest first. */
  get calls(): readonly RecordedCall[] {
    return this.log.calls;
  }

  /** The requests to one route, by its name in Discord's docs ("createMessage", "startThreadFromMessage"). */
  callsOf(route: string): RecordedCall[] {
    return this.log.of(route);
  }

  // ── Make it fail ─────────────────────────────────────────────────────────────────────────────────

  /** The next `times` calls of a route are refused: a 429 (`{status: 429, retryAfter}`) or any `{status, code, message}`. */
  failNext(route: string, failure: InjectedFailure, times = 1): void {
    this.failures.failNext(route, failure, times);
  }

  /** Delays each later answer of a route ("*": every route) by `ms`; 0 removes the delay. */
  delay(route: string, ms: number): void {
    this.failures.delay(route, ms);
  }

  /** Gives a route Discord's rate-limit headers and a bucket: `limit` calls per `windowMs` per channel/guild. */
  rateLimit(route: string, rule: BucketRule | undefined): void {
    this.rateLimits.limit(route, rule);
  }

  /** Every authenticated call is 401 and IDENTIFY/RESUME close 4004 until restored (a token reset in the portal). */
  revokeToken(): void {
    this.failures.tokenRevoked = true;
  }

  restoreToken(): void {
    this.failures.tokenRevoked = false;
  }

  async close(): Promise<void> {
    this.gateway.close();
    await this.server?.close();
  }
}
