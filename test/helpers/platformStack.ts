import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SchedulerLike } from "rxjs";
import type { Broker } from "../../src/broker/broker.js";
import { connectBroker } from "../../src/broker/connectBroker.js";
import type { ConfigInput } from "../../src/config/index.js";
import { scratch, scriptedAgentPath } from "./agents.js";
import { captureLogs, type LogRecord } from "./logCapture.js";
import { until } from "./stack.js";

// A broker spoken to through its native platform ports only ([telegram], [discord], [slack]),
// each pointed at a fake platform server, answering with the scripted agent: the end-to-end
// platform suites (test/e2e/telegram*, discord*, slack*) run on it.

export interface PlatformStack {
  readonly broker: Broker;
  readonly records: LogRecord[];
  /** What the scripted agent observed (`new <sid>`, `prompt <sid> <scenario>`, …). */
  agentEvents(): string[];
  /** The text blocks of each `session/prompt` the agent was sent, in order. */
  prompts(): string[][];
  /** The log lines with `msg`, in order. */
  logged(msg: string): LogRecord[];
  stop(): Promise<void>;
}

export interface PlatformStackOptions {
  /** The whole config but `[agent]`'s command (the scripted agent) and `[pool]`'s state dir (a temp one), which are merged under it. */
  readonly config: Omit<ConfigInput, "gateway">;
  readonly agentEnv?: Record<string, string>;
  /** The clock `[cron]` reads (a faster one: test/helpers/fastClock.ts); default the wall clock. */
  readonly cronScheduler?: SchedulerLike;
  /** What says the ports are up (a log line, a call the fake saw); waited for up to 15 s. */
  readonly ready: (records: readonly LogRecord[], broker: Broker) => boolean;
}

/** Starts the broker on its native ports and waits until `ready` holds. */
export async function startPlatformStack(options: PlatformStackOptions): Promise<PlatformStack> {
  const dir = scratch();
  const stdinLog = join(dir.dir, "stdin.log");
  const { logger, records } = captureLogs();
  const { agent, pool, ...rest } = options.config;
  const broker = await connectBroker({
    logger,
    ...(options.cronScheduler === undefined ? {} : { cronScheduler: options.cronScheduler }),
    config: {
      ...rest,
      agent: { command: process.execPath, args: [scriptedAgentPath], working_dir: dir.dir, env: { AGENT_EVENTS_FILE: dir.eventsFile, AGENT_STDIN_LOG: stdinLog, ...options.agentEnv }, ...agent },
      pool: { state_dir: join(dir.dir, "state"), ...pool },
    },
  });
  await broker.start();
  if (!(await until(() => options.ready(records, broker), 15_000))) {
    await broker.stop({ graceMs: 0 });
    dir.cleanup();
    throw new Error(`the platform ports did not come up within 15 s:\n${records.map((r) => `${String(r.msg)} ${String(r.reason ?? "")}`).join("\n")}`);
  }
  return {
    broker,
    records,
    agentEvents: dir.events,
    prompts: () => promptTexts(stdinLog),
    logged: (msg) => records.filter((r) => r.msg === msg),
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
