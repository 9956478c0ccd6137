import { setTimeout as sleep } from "node:timers/promises";
import type { Chat, ForumTopic, Update, User, UserFromGetMe } from "grammy/types";
import { BotApiError, notFound, unauthorized } from "./botApiError.js";
import { BotFiles, UPLOAD_LIMIT_BYTES } from "./botFiles.js";
import { botMethods, Described, type BotContext, type BotMethod } from "./botMethods.js";
import { CallLog, type ParamEncoding, type RecordedCall } from "./callLog.js";
import { ChatState, type ShownMessage } from "./chatState.js";
import { FailureInjection, type InjectedFailure } from "./failureInjection.js";
import { BotApiHttpServer, type CallAnswer } from "./httpServer.js";
import type { Params } from "./requestParams.js";
import { UpdateQueue } from "./updateQueue.js";
import { UserActor } from "./userMessages.js";
import { WebhookSender } from "./webhookDelivery.js";

export interface FakeBotApiOptions {
  /** The one token the fake accepts (`123456:ABC…`); any other is answered 401. */
  readonly token: string;
  /** The bot `getMe` describes. */
  readonly bot: { readonly id: number; readonly username: string; readonly first_name: string; readonly can_read_all_group_messages?: boolean };
  /** The first `update_id` (default 1). */
  readonly firstUpdateId?: number;
  /** How long after a failed webhook delivery it is tried again (default 1000 ms). */
  readonly webhookRetryDelayMs?: number;
  /** How long a webhook delivery may take (default 10 s). */
  readonly webhookTimeoutMs?: number;
  /** The clock for message dates and call times (default Date.now). */
  readonly now?: () => number;
  /**
   * The largest file a bot may upload (default `UPLOAD_LIMIT_BYTES`, the cloud Bot API's 50 MB); a
   * larger one is answered 413 "Request Entity Too Large". Lower it to meet that answer without
   * moving 50 MB (a self-hosted Bot API server sets its own).
   */
  readonly uploadLimitBytes?: number;
}

/**
 * A Telegram Bot API server for tests, on 127.0.0.1: the methods turnstream uses, each parameter checked
 * as the Bot API documents it and refused in Telegram's words; chats whose state a test reads back; users'
 * updates by long polling or webhook; files; injected failures. Reachable over HTTP from this process or a
 * spawned one (`api.root` is the `api_root`). It never contacts api.telegram.org.
 */
export class FakeBotApi {
  readonly me: UserFromGetMe;
  readonly chats: ChatState;
  readonly updates: UpdateQueue;
  readonly webhook: WebhookSender;
  readonly files = new BotFiles();
  readonly failures = new FailureInjection();
  readonly log = new CallLog();
  /** Answers to callback queries, by query id. */
  readonly callbackAnswers = new Map<string, { text: string | undefined; show_alert: boolean }>();
  private readonly openCallbackQueries = new Set<string>();
  private readonly methods: ReadonlyMap<string, BotMethod>;
  private readonly now: () => number;
  private readonly uploadLimitBytes: number;
  private server: BotApiHttpServer | undefined;
  private readonly closing = new AbortController();

  private constructor(readonly options: FakeBotApiOptions) {
    this.now = options.now ?? Date.now;
    this.uploadLimitBytes = options.uploadLimitBytes ?? UPLOAD_LIMIT_BYTES;
    this.me = {
      id: options.bot.id,
      is_bot: true,
      first_name: options.bot.first_name,
      username: options.bot.username,
      can_join_groups: true,
      can_read_all_group_messages: options.bot.can_read_all_group_messages ?? false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
    } as UserFromGetMe;
    this.chats = new ChatState(this.me);
    this.updates = new UpdateQueue(options.firstUpdateId ?? 1);
    this.webhook = new WebhookSender(this.updates, { retryDelayMs: options.webhookRetryDelayMs ?? 1000, timeoutMs: options.webhookTimeoutMs ?? 10_000, now: this.now });
    const context: BotContext = {
      me: this.me,
      state: this.chats,
      queue: this.updates,
      webhook: this.webhook,
      files: this.files,
      uploadLimitBytes: this.uploadLimitBytes,
      openCallbackQueries: this.openCallbackQueries,
      callbackAnswers: this.callbackAnswers,
      now: this.now,
    };
    this.methods = botMethods(context);
  }

  static async start(options: FakeBotApiOptions): Promise<FakeBotApi> {
    const api = new FakeBotApi(options);
    api.server = await BotApiHttpServer.listen({
      call: (token, method, params, encoding, gone) => api.answer(token, method, params, encoding, gone),
      file: (token, path) => (token !== options.token ? unauthorized() : (api.files.download(path) ?? notFound())),
    }, api.uploadLimitBytes);
    return api;
  }

  /** The `api_root` for a client: `http://127.0.0.1:<port>`. */
  get root(): string {
    if (!this.server) throw new Error("fake Bot API: not started");
    return this.server.root;
  }

  get token(): string {
    return this.options.token;
  }

  /** Every call received, oldest first. */
  get calls(): readonly RecordedCall[] {
    return this.log.calls;
  }

  callsOf(method: string): RecordedCall[] {
    return this.log.of(method);
  }

  /** The most `getUpdates` calls ever in flight at once (1 when pollers never overlapped). */
  get maxConcurrentPollers(): number {
    return this.updates.maxConcurrentPollers;
  }

  addUser(user: Omit<User, "is_bot"> & { is_bot?: boolean }): User {
    return this.chats.addUser(user);
  }

  addPrivateChat(user: User): Chat.PrivateChat {
    return this.chats.addPrivateChat(user);
  }

  addGroup(options: { title: string; id?: number }): Chat.GroupChat {
    return this.chats.addGroup(options);
  }

  addSupergroup(options: { title: string; id?: number; username?: string; isForum?: boolean; botIsAdmin?: boolean }): Chat.SupergroupChat {
    return this.chats.addSupergroup(options);
  }

  /** A topic in a forum supergroup, created by `creator` (Telegram's service account 777000 if not given). */
  addTopic(chatId: number, name: string, creator?: User): ForumTopic {
    const by = creator ?? ({ id: 777_000, is_bot: false, first_name: "Telegram" } as User);
    return this.chats.createTopic(this.chats.find(chatId), name, 0x6fb9f0, by, Math.floor(this.now() / 1000));
  }

  /** A user's (or another bot's) side of the chats: what they send becomes updates for the bot. */
  from(user: User): UserActor {
    return new UserActor(user, { state: this.chats, queue: this.updates, files: this.files, openCallbackQueries: this.openCallbackQueries, now: this.now });
  }

  /** What a chat shows now: messages still there, edits applied, the bot's reactions. */
  shown(chatId: number, options: { thread?: number } = {}): ShownMessage[] {
    return this.chats.shown(chatId, options);
  }

  /** The texts of the bot's messages a chat shows now, oldest first. */
  botTexts(chatId: number, options: { thread?: number } = {}): (string | undefined)[] {
    return this.shown(chatId, options).filter((message) => message.from_bot).map((message) => message.text);
  }

  /** The next `times` calls of `method` are refused with this error (429 with `retry_after`, 400, 500…). */
  failNext(method: string, failure: InjectedFailure, times = 1): void {
    this.failures.failNext(method, failure, times);
  }

  /** Every call is answered 401 Unauthorized until `restoreToken()`, as for a token revoked in BotFather. */
  revokeToken(): void {
    this.failures.tokenRevoked = true;
  }

  restoreToken(): void {
    this.failures.tokenRevoked = false;
  }

  /** Delays each later answer of `method` ("*": every method) by `ms`; 0 removes the delay. */
  delay(method: string, ms: number): void {
    this.failures.delay(method, ms);
  }

  /** POSTs an update to a URL with chosen headers (a forged webhook call); `api.webhook.deliveries` has the real ones. */
  postUpdate(url: string, update: Update, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    return this.webhook.post(url, update, headers);
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.updates.release();
    this.webhook.stop();
    await this.server?.close();
  }

  /** A call, recorded and answered; `params` is the refusal of a body that could not be read (recorded with no parameters). */
  private async answer(token: string, name: string, params: Params | BotApiError, encoding: ParamEncoding, gone: AbortSignal): Promise<CallAnswer> {
    const method = this.methods.get(name.toLowerCase());
    const call = this.log.record(method?.name ?? name, params instanceof BotApiError ? {} : params, encoding, this.now());
    const release = method?.name === "getUpdates" && !(params instanceof BotApiError) ? await this.updates.admitPoller() : undefined;
    let answer: CallAnswer;
    try {
      answer = params instanceof BotApiError ? { status: params.errorCode, body: params.body } : await this.outcome(token, method, params, gone);
    } finally {
      release?.();
    }
    const body = answer.body as { description?: string; result?: unknown };
    Object.assign(call, { answeredAt: this.now(), status: answer.status, ok: answer.status === 200, description: body.description, result: body.result });
    return answer;
  }

  /** A call's answer: refused (token, unknown method, an injected failure, the method's own checks) or its result. */
  private async outcome(token: string, method: BotMethod | undefined, params: Params, gone: AbortSignal): Promise<CallAnswer> {
    try {
      if (token !== this.options.token || this.failures.tokenRevoked) throw unauthorized();
      if (!method) throw notFound();
      const delay = this.failures.delayOf(method.name);
      if (delay > 0) await sleep(delay, undefined, { signal: AbortSignal.any([gone, this.closing.signal]) });
      const injected = this.failures.takeFailure(method.name);
      if (injected) throw injected;
      const value = await method.handle(params, gone);
      if (value instanceof Described) return { status: 200, body: { ok: true, result: value.result, description: value.description } };
      return { status: 200, body: { ok: true, result: value } };
    } catch (error) {
      if (error instanceof BotApiError) return { status: error.errorCode, body: error.body };
      // A delay cut short: the caller hung up or the fake is closing; nobody reads this answer.
      if ((error as Error).name === "AbortError") return { status: 500, body: { ok: false, error_code: 500, description: "Internal Server Error: request aborted" } };
      throw error;
    }
  }
}
