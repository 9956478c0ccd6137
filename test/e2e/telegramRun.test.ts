import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { scriptedAgentPath } from "../helpers/agents.js";
import { runTurnstream, spawnLogged, type LoggedProcess } from "../helpers/cli.js";
import { someChats, TOKEN, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";

// `npx turnstream run` as a user starts it (issue 38's acceptance): a config file with only
// [telegram] bot_token, allowed_users and [agent] — plus api_root, only because a test never
// reaches api.telegram.org — is a working bot; check-config masks the token and takes OpenAB's
// own [telegram] keys unchanged; a token Telegram refuses stops start-up with one line.

const fake = useFakeBotApi();
const dir = mkdtempSync(join(tmpdir(), "turnstream-telegram-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let running: LoggedProcess | undefined;
afterEach(async () => {
  running?.child.kill("SIGKILL");
  await running?.exited;
  running = undefined;
});

/** The part of the token that is the secret (the bot id before the colon is public). */
const SECRET_PART = TOKEN.split(":")[1]!;
// Every TELEGRAM_* variable removed, so the developer's shell cannot change the outcome; a home of its own for the state.
const ENV = {
  HOME: dir,
  LOG_LEVEL: "debug",
  TELEGRAM_BOT_TOKEN: undefined,
  TELEGRAM_SECRET_TOKEN: undefined,
  TELEGRAM_TRUSTED_SOURCE_ONLY: undefined,
  TELEGRAM_RICH_MESSAGES: undefined,
  TELEGRAM_STREAMING: undefined,
  TELEGRAM_WEBHOOK_PATH: undefined,
  TELEGRAM_ALLOW_ALL_USERS: undefined,
  TELEGRAM_ALLOWED_USERS: undefined,
};

function configFile(name: string, toml: string): string {
  const file = join(dir, name);
  writeFileSync(file, toml);
  return file;
}

/** The whole config of a Telegram bot: the token, who may talk to it, the agent. */
function botConfig(): string {
  return configFile(
    "bot.toml",
    `[telegram]
bot_token = "${TOKEN}"
allowed_users = ["1001"]
api_root = "${fake.api.root}"

[agent]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(scriptedAgentPath)}]
`,
  );
}

describe("turnstream run with [telegram]", () => {
  it("a token, allowed_users and [agent] make a working bot, the token nowhere in what it prints; check-config masks it", async () => {
    const { alice, dm } = someChats(fake.api);
    const file = botConfig();
    running = spawnLogged(["run", "--config", file], { env: ENV, cwd: dir });
    const checked = await runTurnstream(["check-config", file], { env: ENV });
    await until(() => fake.api.callsOf("getUpdates").length > 0, 15_000);
    fake.api.from(alice).text(dm.id, "prose");
    // streaming is on by default (it follows rich_messages): "…" first, then edited to the reply.
    await until(() => fake.api.botTexts(dm.id)[0] === "hey what's up", 20_000);
    expect(fake.api.botTexts(dm.id)).toEqual(["hey what's up"]);
    expect(fake.api.callsOf("sendMessage").map((call) => call.params.text)).toEqual(["…"]);
    running.child.kill("SIGTERM");
    expect(await running.exited).toEqual({ code: 0, signal: null });
    const printed = JSON.stringify(running.logs) + running.stderr();
    expect(running.logs.some((line) => line.msg === "telegram bot identified")).toBe(true);
    expect(printed).not.toContain(SECRET_PART);
    // No gateway here: no line of a Telegram-only bot speaks of one, its sends leave for Telegram.
    expect(running.logs.filter((line) => /gateway/i.test(String(line.msg)))).toEqual([]);
    expect(running.logs.filter((line) => line.msg === "message leaving for its platform").map((line) => line.platform)).toContain("telegram");

    expect(checked).toMatchObject({ code: 0, stderr: "" });
    expect(checked.stdout).toMatch(/\[telegram\]\nbot_token = "\*\*\*"\n/);
    expect(checked.stdout).toContain('mode = "polling"');
    expect(checked.stdout).not.toContain(SECRET_PART);
  });

  it("an OpenAB [telegram] section, upstream's keys only, passes check-config unchanged, its tokens masked", async () => {
    const secret = "openab-webhook-secret";
    const file = configFile(
      "openab.toml",
      `[telegram]
bot_token = "${TOKEN}"
secret_token = "${secret}"
trusted_source_only = true
rich_messages = true
streaming = true
webhook_path = "/webhook/telegram"
allow_all_users = false
allowed_users = ["12345678"]
`,
    );
    const checked = await runTurnstream(["check-config", file], { env: ENV });
    expect(checked).toMatchObject({ code: 0, stderr: "" });
    expect(checked.stdout).toMatch(/\[telegram\]\nbot_token = "\*\*\*"\nsecret_token = "\*\*\*"\n/);
    expect(checked.stdout).not.toContain(SECRET_PART);
    expect(checked.stdout).not.toContain(secret);
  });

  it("a revoked token stops run with one line naming the key, a non-zero exit, the token nowhere", async () => {
    fake.api.revokeToken();
    running = spawnLogged(["run", "--config", botConfig()], { env: ENV, cwd: dir });
    const exited = await running.exited;
    expect(exited.code).not.toBe(0);
    expect(running.stderr()).toBe("turnstream: telegram.bot_token: rejected by the Bot API (401)\n");
    expect(JSON.stringify(running.logs)).not.toContain(SECRET_PART);
    expect(fake.api.callsOf("getMe")).toHaveLength(1);
    expect(fake.api.callsOf("getUpdates")).toEqual([]);
  });
});
