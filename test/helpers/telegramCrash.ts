import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeBotApi } from "../fakes/telegram/index.js";
import { TOKEN, until } from "../fakes/telegram/fakeBotApiFixture.js";
import { scriptedAgentPath } from "./agents.js";
import { spawnLogged, type LoggedProcess } from "./cli.js";

// A Telegram bot run as a user runs it (`turnstream run`, the embedded bus, its state dir) against
// the fake Bot API, killed with SIGKILL while updates are pending and started again on the same
// state dir: the suites of issue 38's "Nothing lost, nothing twice" (telegramCrash*.test.ts).

/** The recovered-reply marker's start (src/turn/turnLedger.ts): a re-run whose interrupted attempt may have reached the user. */
const RECOVERED = "♻️ Recovered reply";

export interface CrashRunOptions {
  readonly users: number;
  /** Messages each user sends, all pushed to the fake before the first answer. */
  readonly perUser: number;
  /** How long each turn takes (the `sayafter` scenario). */
  readonly turnMs: number;
  /**
   * The broker is killed once this many answers are in the chats — with every `sendMessage`
   * hanging at the fake for a moment first, so no answer is between Telegram and the delivery
   * ledger at the kill: that window, where a re-run answers once more (marked), is the one no
   * broker can close (Telegram takes no idempotency key), and it stays out of the count.
   */
  readonly killAfter: number;
  /**
   * Hold every `getUpdates` after the first batch, so Telegram never hears the batch arrived and
   * hands it all over again after the restart (the journal's msgIds must collapse it); otherwise
   * offsets are confirmed as usual and only the journal knows what was pending.
   */
  readonly holdConfirmation: boolean;
  /** How long the restarted broker has to answer everything. */
  readonly answerWithinMs: number;
}

/** One prompt and what the bot sent for it. */
export interface Answered {
  readonly prompt: string;
  readonly user: number;
  /** Bot messages answering it without the recovered-reply marker. */
  readonly plain: number;
  /** Bot messages answering it with the marker: a re-run of a turn that had begun sending (here, its answer hung at the kill). */
  readonly marked: number;
}

export interface CrashRun {
  readonly sent: number;
  /** Answers in the chats when the first broker was killed. */
  readonly answeredAtKill: number;
  readonly answers: readonly Answered[];
  /** Per user: the prompts in the order their first answer appeared. */
  readonly orderSeen: readonly (readonly string[])[];
  /** Per user: the prompts in the order they were sent. */
  readonly orderSent: readonly (readonly string[])[];
  /** The restarted broker's log lines. */
  readonly restartLogs: readonly Record<string, unknown>[];
  readonly firstExit: { code: number | null; signal: NodeJS.Signals | null };
  readonly secondExit: { code: number | null; signal: NodeJS.Signals | null };
}

/** Sends the messages, kills the bot mid-stream, restarts it on the same state dir and reports every prompt's answers once it stopped. Its waits add up to less than the tests' timeouts, so its processes are always killed in its `finally`. */
export async function crashAndRestart(fake: FakeBotApi, options: CrashRunOptions): Promise<CrashRun> {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-telegram-crash-"));
  const running: LoggedProcess[] = [];
  try {
    const users = Array.from({ length: options.users }, (_, i) => fake.addUser({ id: 2001 + i, first_name: `User${i}` }));
    const chats = users.map((user) => fake.addPrivateChat(user));
    const config = join(dir, "bot.toml");
    writeFileSync(config, botConfig(fake, dir, users.map((user) => user.id)));
    const env = { HOME: dir, LOG_LEVEL: "info", ...NO_TELEGRAM_ENV };
    const start = () => {
      const process = spawnLogged(["run", "--config", config], { env, cwd: dir });
      running.push(process);
      return process;
    };

    const first = start();
    await until(() => fake.callsOf("getUpdates").length > 0, 20_000);
    if (options.holdConfirmation) {
      // The waiting long poll is past the fake's delay check (a turn or two of its event loop): it
      // answers with the batch; every later poll, the one that would confirm it, hangs until the kill.
      await new Promise((resolve) => setTimeout(resolve, 200));
      fake.delay("getUpdates", 600_000);
    }
    const orderSent = users.map((_, u) => Array.from({ length: options.perUser }, (_, m) => `answer-${u}-${m}`));
    for (let m = 0; m < options.perUser; m++) {
      for (let u = 0; u < users.length; u++) fake.from(users[u]!).text(chats[u]!.id, `sayafter ${options.turnMs} ${orderSent[u]![m]!}`);
    }
    const sent = options.users * options.perUser;
    const answered = () => chats.reduce((sum, chat) => sum + fake.botTexts(chat.id).length, 0);
    await until(() => answered() >= options.killAfter, 30_000);
    fake.delay("sendMessage", 600_000);
    // An answer already past the fake's delay arrives and the broker records it meanwhile; the rest hang.
    await new Promise((resolve) => setTimeout(resolve, 500));
    first.child.kill("SIGKILL");
    const firstExit = await first.exited;
    const answeredAtKill = answered();
    fake.delay("getUpdates", 0);
    fake.delay("sendMessage", 0);

    const second = start();
    const prompts = orderSent.flat();
    const answeredPrompt = (prompt: string, user: number) => fake.botTexts(chats[user]!.id).some((text) => text?.endsWith(prompt));
    await until(() => orderSent.every((list, user) => list.every((prompt) => answeredPrompt(prompt, user))), options.answerWithinMs);
    // A graceful stop lets whatever still runs finish: after it, nothing more can arrive.
    second.child.kill("SIGTERM");
    const secondExit = await second.exited;

    const answers = prompts.map((prompt) => {
      const user = Number(prompt.split("-")[1]);
      const texts = fake.botTexts(chats[user]!.id).filter((text): text is string => text?.endsWith(prompt) === true);
      return { prompt, user, plain: texts.filter((text) => !text.startsWith(RECOVERED)).length, marked: texts.filter((text) => text.startsWith(RECOVERED)).length };
    });
    const orderSeen = chats.map((chat) => {
      const seen: string[] = [];
      for (const text of fake.botTexts(chat.id)) {
        const prompt = text?.match(/answer-\d+-\d+$/)?.[0];
        if (prompt !== undefined && !seen.includes(prompt)) seen.push(prompt);
      }
      return seen;
    });
    return { sent, answeredAtKill, answers, orderSeen, orderSent, restartLogs: second.logs, firstExit, secondExit };
  } finally {
    for (const process of running) {
      process.child.kill("SIGKILL");
      await process.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The whole config of the bot: its token, who may write, the agent, one turn per message, the state dir; no status reactions (a turn's only message is its answer). */
function botConfig(fake: FakeBotApi, dir: string, userIds: readonly number[]): string {
  return `[telegram]
bot_token = "${TOKEN}"
allowed_users = [${userIds.map((id) => `"${id}"`).join(", ")}]
api_root = "${fake.root}"
streaming = false

[agent]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(scriptedAgentPath)}]

[queue]
mode = "followup"
debounce_ms = 0

[reactions]
enabled = false

[pool]
state_dir = ${JSON.stringify(join(dir, "state"))}
max_sessions = ${userIds.length}
`;
}

/** Every TELEGRAM_* variable removed, so the developer's shell cannot change the outcome. */
const NO_TELEGRAM_ENV = {
  TELEGRAM_BOT_TOKEN: undefined,
  TELEGRAM_SECRET_TOKEN: undefined,
  TELEGRAM_TRUSTED_SOURCE_ONLY: undefined,
  TELEGRAM_RICH_MESSAGES: undefined,
  TELEGRAM_STREAMING: undefined,
  TELEGRAM_WEBHOOK_PATH: undefined,
  TELEGRAM_ALLOW_ALL_USERS: undefined,
  TELEGRAM_ALLOWED_USERS: undefined,
} as const;
