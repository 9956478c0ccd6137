import type { SchedulerLike } from "rxjs";
import type { Broker } from "../../src/broker/broker.js";
import type { ConfigInput } from "../../src/config/index.js";
import type { FakeBotApi, RecordedCall } from "../fakes/telegram/index.js";
import type { LogRecord } from "./logCapture.js";
import { startPlatformStack } from "./platformStack.js";

// A broker whose only platform is `[telegram]`, pointed at the fake Bot API, answering with the
// scripted agent: the end-to-end Telegram suites (test/e2e/telegram*.test.ts) run on it.

export interface TelegramStack {
  readonly broker: Broker;
  readonly records: LogRecord[];
  /** What the scripted agent observed (`new <sid>`, `prompt <sid> <scenario>`, …). */
  agentEvents(): string[];
  /** The text blocks of each `session/prompt` the agent was sent, in order. */
  prompts(): string[][];
  /** Webhook mode: where the port's listener takes Telegram's posts (`http://127.0.0.1:<port>/webhook/telegram`). */
  readonly webhookEndpoint: string | undefined;
  stop(): Promise<void>;
}

type TelegramKeys = NonNullable<ConfigInput["telegram"]>;

export interface TelegramStackOptions {
  /** Merged over the stack's `[telegram]`: the fake's token and `api_root`, everyone allowed, streaming off. */
  readonly telegram?: Partial<TelegramKeys>;
  /** Other sections, merged over the stack's `[agent]` (the scripted agent) and `[pool]` (a temp state dir). */
  readonly config?: Omit<ConfigInput, "telegram" | "gateway">;
  readonly agentEnv?: Record<string, string>;
  /** The clock `[cron]` reads; default the wall clock. */
  readonly cronScheduler?: SchedulerLike;
}

/** Starts the broker and waits until its Telegram port polls (or, in webhook mode, listens). */
export async function startTelegramStack(api: FakeBotApi, options: TelegramStackOptions = {}): Promise<TelegramStack> {
  const telegram = { bot_token: api.token, api_root: api.root, allow_all_users: true, streaming: false, ...options.telegram };
  const webhook = (r: LogRecord) => r.msg === "telegram webhook listening";
  const stack = await startPlatformStack({
    config: { ...options.config, telegram },
    ...(options.agentEnv === undefined ? {} : { agentEnv: options.agentEnv }),
    ...(options.cronScheduler === undefined ? {} : { cronScheduler: options.cronScheduler }),
    // Webhook mode: the listener is up; polling: the first getUpdates went out.
    ready: (records, broker) => (broker.config.telegram?.mode === "webhook" ? records.some(webhook) : api.callsOf("getUpdates").length > 0),
  });
  const listening = stack.records.find(webhook);
  return {
    ...stack,
    webhookEndpoint: listening === undefined ? undefined : `${String(listening.url)}${String(listening.path)}`,
  };
}

/** The calls a turn made in a chat: every call but polling and start-up, in the order they arrived. */
export function replyCalls(api: FakeBotApi, chatId: number): RecordedCall[] {
  return api.calls.filter((call) => call.params.chat_id === chatId || call.params.chat_id === String(chatId));
}

/** `replyCalls` as `method` or `method text`/`method emoji`, for asserting the sequence a chat saw. */
export function callSequence(api: FakeBotApi, chatId: number): string[] {
  return replyCalls(api, chatId).map((call) => {
    const { text, reaction } = call.params as { text?: unknown; reaction?: unknown };
    if (typeof text === "string") return `${call.method} ${text}`;
    if (Array.isArray(reaction)) return `${call.method} ${(reaction as { emoji?: string }[]).map((r) => r.emoji).join("")}`;
    return call.method;
  });
}
