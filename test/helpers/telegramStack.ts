import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Broker } from "../../src/broker/broker.js";
import { connectBroker } from "../../src/broker/connectBroker.js";
import type { ConfigInput } from "../../src/config/index.js";
import type { FakeBotApi, RecordedCall } from "../fakes/telegram/index.js";
import { until } from "../fakes/telegram/fakeBotApiFixture.js";
import { scratch, scriptedAgentPath } from "./agents.js";
import { captureLogs, type LogRecord } from "./logCapture.js";

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
}

/** Starts the broker and waits until its Telegram port polls (or, in webhook mode, listens). */
export async function startTelegramStack(api: FakeBotApi, options: TelegramStackOptions = {}): Promise<TelegramStack> {
  const dir = scratch();
  const stdinLog = join(dir.dir, "stdin.log");
  const { logger, records } = captureLogs();
  const { agent, pool, ...rest } = options.config ?? {};
  const broker = await connectBroker({
    logger,
    config: {
      ...rest,
      telegram: { bot_token: api.token, api_root: api.root, allow_all_users: true, streaming: false, ...options.telegram },
      agent: { command: process.execPath, args: [scriptedAgentPath], working_dir: dir.dir, env: { AGENT_EVENTS_FILE: dir.eventsFile, AGENT_STDIN_LOG: stdinLog, ...options.agentEnv }, ...agent },
      pool: { state_dir: join(dir.dir, "state"), ...pool },
    },
  });
  await broker.start();
  const webhook = broker.config.telegram?.mode === "webhook";
  await until(() => (webhook ? records.some((r) => r.msg === "telegram webhook listening") : api.callsOf("getUpdates").length > 0), 10_000);
  const listening = records.find((r) => r.msg === "telegram webhook listening");
  return {
    broker,
    records,
    webhookEndpoint: listening === undefined ? undefined : `${String(listening.url)}${String(listening.path)}`,
    agentEvents: dir.events,
    prompts: () => promptTexts(stdinLog),
    async stop() {
      await broker.stop({ graceMs: 2_000 });
      dir.cleanup();
    },
  };
}

function promptTexts(file: string): string[][] {
  let lines: string[];
  try {
    lines = readFileSync(file, "utf8").split("\n");
  } catch {
    return [];
  }
  return lines
    .filter((line) => line.includes('"session/prompt"'))
    .map((line) => (JSON.parse(line) as { params: { prompt: { type: string; text?: string }[] } }).params.prompt.flatMap((block) => (block.type === "text" ? [block.text ?? ""] : [])));
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
