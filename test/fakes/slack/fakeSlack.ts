import { assistantMethods } from "./assistantMethods.js";
import { authMethods } from "./authMethods.js";
import { CallLog, type RecordedCall } from "./callLog.js";
import { chatMethods } from "./chatMethods.js";
import { EventPublisher } from "./events.js";
import { FailureInjection, type InjectedFailure } from "./failureInjection.js";
import { fileMethods, UPLOAD_LIMIT_BYTES } from "./fileMethods.js";
import { FileStore } from "./fileStore.js";
import { SlackHttpServer, type HttpAnswer } from "./httpServer.js";
import { MessageStore, type ShownMessage, type StoredMessage } from "./messageStore.js";
import { reactionMethods } from "./reactionMethods.js";
import { seenMessage, type MessageContent, type SeenMessage } from "./seenMessage.js";
import { readMethods } from "./readMethods.js";
import type { AssistantThreadState, EphemeralMessage, SlackContext } from "./slackContext.js";
import { SocketModeServer } from "./socketMode.js";
import { UploadTickets } from "./uploadTickets.js";
import { SlackActor } from "./userActor.js";
import { WebApi } from "./webApi.js";
import { IdMaker, Workspace, type Conversation, type NewUser, type SlackBot, type SlackUser } from "./workspace.js";

/** The bot scopes OpenAB's Slack setup asks for, plus DMs (`im:`) and assistant mode. */
export const DEFAULT_BOT_SCOPES = [
  "app_mentions:read", "chat:write", "channels:history", "groups:history", "im:history", "channels:read", "groups:read", "im:read",
  "reactions:write", "files:read", "files:write", "users:read", "assistant:write",
] as const;

export interface FakeSlackOptions {
  /** The bot token (`xoxb-…`) the Web API takes. */
  readonly botToken?: string;
  /** The app-level token (`xapp-…`) `apps.connections.open` takes. */
  readonly appToken?: string;
  readonly team?: { readonly name?: string; readonly domain?: string };
  /** This app's bot: its name (and display name), optionally its ids. */
  readonly bot?: NewUser & { readonly botId?: string; readonly appId?: string };
  readonly botScopes?: readonly string[];
  /** Socket Mode: how long an envelope waits for its ack before it is sent again (default 3000 ms, Slack's 3 s). */
  readonly ackTimeoutMs?: number;
  /** Socket Mode: retries of an unacked Events API envelope (default 3). */
  readonly maxRetries?: number;
  /** Socket Mode: connections at once (default 10, Slack's limit). */
  readonly maxConnections?: number;
  /** Socket Mode: how often the server pings (default 10 s; 0 never). */
  readonly pingIntervalMs?: number;
  /** Whether the bot's own posts, edits and deletes come back as events, as Slack sends them (default true). */
  readonly echoBotMessages?: boolean;
  /** The largest file the workspace takes (default Slack's 1 GB; an admin may restrict it lower): `file_upload_size_restricted` past it. */
  readonly uploadLimitBytes?: number;
  /**
   * Whether `files.completeUploadExternal` answers whole file objects with their `shares` (the
   * message `ts` each share made), as Slack does when its asynchronous share finished before the
   * answer; default false, the documented `{files: [{id, title}]}`.
   */
  readonly completeUploadShares?: boolean;
  /** The clock for `ts`, call times and ack latencies (default Date.now). */
  readonly now?: () => number;
}

/**
 * Slack for tests, on 127.0.0.1: the Web API methods turnstream's Slack adapter uses (`apiUrl` is
 * WebClient's `slackApiUrl`), each argument checked as Slack's method pages document it and refused
 * with Slack's error codes; Socket Mode over `ws://` with hello, envelopes, acks and redelivery; a
 * workspace of users, bots, channels and DMs whose actions become events; what each conversation shows,
 * and what a person sees of a message (`seen`: formatting, mentions, links, buttons);
 * every call; injected failures, rate limits and delays. It never contacts slack.com.
 */
export class FakeSlack {
  readonly workspace: Workspace;
  /** This app's bot. */
  readonly bot: SlackBot;
  readonly store: MessageStore;
  readonly files: FileStore;
  /** Uploads opened with `files.getUploadURLExternal`, and the bytes each URL received. */
  readonly uploads = new UploadTickets();
  readonly socket: SocketModeServer;
  readonly failures = new FailureInjection();
  readonly log = new CallLog();
  readonly botToken: string;
  readonly appToken: string;
  /** Every message posted with `chat.postEphemeral`, in order: each seen by its `user` only, kept nowhere else. */
  readonly ephemerals: EphemeralMessage[] = [];
  private readonly customEmoji = new Set<string>();
  private readonly assistantThreads = new Map<string, AssistantThreadState>();
  private readonly actorContext;
  private readonly closing = new AbortController();
  private readonly webApi: WebApi;
  private server: SlackHttpServer | undefined;

  private constructor(options: FakeSlackOptions) {
    const now = options.now ?? Date.now;
    this.botToken = options.botToken ?? "xoxb-1000000001-2000000002-fakeBotTokenForTests";
    this.appToken = options.appToken ?? "xapp-1-A0TS000001-3000000003-fakeAppLevelTokenForTests";
    if (!this.botToken.startsWith("xoxb-") || !this.appToken.startsWith("xapp-")) throw new Error("fake Slack: the bot token starts with xoxb- and the app token with xapp-");
    const ids = new IdMaker();
    this.workspace = new Workspace({ id: ids.next("T"), name: options.team?.name ?? "Turnstream Tests", domain: options.team?.domain ?? "turnstream-tests" }, ids, now);
    this.bot = this.workspace.addBot({ name: "turnstream", ...options.bot });
    this.files = new FileStore(this.workspace.team, ids);
    this.store = new MessageStore(this.bot.user.id, now, this.files);
    this.socket = new SocketModeServer({
      appId: this.bot.appId,
      ackTimeoutMs: options.ackTimeoutMs ?? 3000,
      maxRetries: options.maxRetries ?? 3,
      maxConnections: options.maxConnections ?? 10,
      pingIntervalMs: options.pingIntervalMs ?? 10_000,
      now,
    });
    const events = new EventPublisher({ team: this.workspace.team, appId: this.bot.appId, botUserId: this.bot.user.id, ids, socket: this.socket, now });
    const context: SlackContext = {
      workspace: this.workspace,
      store: this.store,
      files: this.files,
      events,
      socket: this.socket,
      bot: this.bot,
      botScopes: new Set(options.botScopes ?? DEFAULT_BOT_SCOPES),
      customEmoji: this.customEmoji,
      assistantThreads: this.assistantThreads,
      ephemerals: this.ephemerals,
      echoBotMessages: options.echoBotMessages ?? true,
      uploads: this.uploads,
      uploadLimitBytes: options.uploadLimitBytes ?? UPLOAD_LIMIT_BYTES,
      completeUploadShares: options.completeUploadShares ?? false,
      now,
    };
    this.actorContext = { workspace: this.workspace, store: this.store, files: this.files, events, socket: this.socket, bot: this.bot, now };
    this.webApi = new WebApi({
      methods: [...authMethods(context, () => this.root.replace(/^http/, "ws")), ...chatMethods(context), ...reactionMethods(context), ...readMethods(context), ...assistantMethods(context), ...fileMethods(context)],
      tokens: { bot: this.botToken, app: this.appToken },
      botScopes: context.botScopes,
      failures: this.failures,
      log: this.log,
      now,
      closing: this.closing.signal,
    });
  }

  static async start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
    const slack = new FakeSlack(options);
    slack.server = await SlackHttpServer.listen({
      call: (method, request, url, body, gone) => slack.webApi.answer(method, request, url, body, gone),
      file: (path, authorization) => slack.download(path, authorization),
      upload: (path, method, contentType, body) => slack.uploads.receive(path, method, contentType, body),
      upgrade: (request, socket, head) => slack.socket.upgrade(request, socket, head),
    });
    slack.files.baseUrl = slack.server.root;
    return slack;
  }

  /** `http://127.0.0.1:<port>`. */
  get root(): string {
    if (!this.server) throw new Error("fake Slack: not started");
    return this.server.root;
  }

  /** WebClient's `slackApiUrl`: `http://127.0.0.1:<port>/api/`. */
  get apiUrl(): string {
    return `${this.root}/api/`;
  }

  get calls(): readonly RecordedCall[] {
    return this.log.calls;
  }

  callsOf(method: string): RecordedCall[] {
    return this.log.of(method);
  }

  addUser(user: NewUser): SlackUser {
    return this.workspace.addUser(user);
  }

  /** Another app's bot, which can post and mention (`from(bot)`). */
  addBot(bot: NewUser & { botId?: string; appId?: string }): SlackBot {
    return this.workspace.addBot(bot);
  }

  /** A channel with these members; this app's bot is one unless `botIsMember: false`. */
  addChannel(options: { name: string; private?: boolean; members?: readonly (SlackUser | SlackBot)[]; botIsMember?: boolean; id?: string }): Conversation {
    const members = (options.members ?? []).map((member) => ("botId" in member ? member.user.id : member.id));
    if (options.botIsMember ?? true) members.push(this.bot.user.id);
    return this.workspace.addChannel({ name: options.name, private: options.private ?? false, members, ...(options.id ? { id: options.id } : {}) });
  }

  /** The bot's DM with a user (`D…`), opened if new. */
  dm(user: SlackUser): Conversation {
    return this.workspace.im(this.bot.user.id, user.id);
  }

  /** A custom emoji this workspace knows (for `reactions.add`). */
  addEmoji(name: string): void {
    this.customEmoji.add(name);
  }

  /** A user's or another bot's side: what they do becomes events for the app. */
  from(sender: SlackUser | SlackBot): SlackActor {
    return "botId" in sender ? new SlackActor(sender.user, sender, this.actorContext) : new SlackActor(sender, undefined, this.actorContext);
  }

  /** A mention as Slack writes it in text: `<@U…>`. */
  mention(who: SlackUser | SlackBot): string {
    return `<@${"botId" in who ? who.user.id : who.id}>`;
  }

  /** What a conversation shows now: its top-level messages, or one thread (`{ thread: parent ts }`). */
  shown(channel: string, options: { thread?: string } = {}): ShownMessage[] {
    return this.store.shown(channel, options);
  }

  /**
   * What a person sees of a message — one `shown(…)` lists (its `message`), or an ephemeral — as a
   * Slack client shows it: the characters, their formatting, who it notifies, links and buttons.
   */
  seen(message: MessageContent): SeenMessage {
    return seenMessage(message, this.workspace);
  }

  /** The texts of the bot's messages a conversation (or thread) shows now, oldest first. */
  botTexts(channel: string, options: { thread?: string } = {}): string[] {
    return this.shown(channel, options).filter((message) => message.from_bot).map((message) => message.text);
  }

  /** Replies posted with a `thread_ts` that named no message: Slack says ok and nobody sees them. */
  lostReplies(): StoredMessage[] {
    return this.store.lostReplies();
  }

  /** The status history and suggested prompts the bot set on a thread (assistant mode). */
  assistantThread(channel: string, threadTs: string): AssistantThreadState | undefined {
    return this.assistantThreads.get(`${channel}:${threadTs}`);
  }

  /** The next `times` calls of `method` fail: 429 with `Retry-After`, an `{ok:false}` error, or an HTTP outage. */
  failNext(method: string, failure: InjectedFailure, times = 1): void {
    this.failures.failNext(method, failure, times);
  }

  /** Delays each later answer of `method` ("*": every method) by `ms`; 0 removes the delay. */
  delay(method: string, ms: number): void {
    this.failures.delay(method, ms);
  }

  /** Every call with this token is answered `token_revoked` until restored. */
  revokeToken(kind: "bot" | "app"): void {
    this.failures.revoked.add(kind);
  }

  restoreToken(kind: "bot" | "app"): void {
    this.failures.revoked.delete(kind);
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.socket.close();
    await this.server?.close();
  }

  /**
   * A shared file's bytes for `Authorization: Bearer <bot token>`. Without it Slack answers 200 with its
   * sign-in page (HTML), not an error: a client that does not check the content type saves a web page.
   */
  private download(path: string, authorization: string | undefined): HttpAnswer {
    const found = this.files.download(path);
    if (!found) return { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" };
    if (authorization !== `Bearer ${this.botToken}`) {
      return { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: "<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to Slack</body></html>" };
    }
    return { status: 200, headers: { "content-type": found.file.mimetype, "content-disposition": `attachment; filename="${found.file.name}"` }, body: found.bytes };
  }
}
