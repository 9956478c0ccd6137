import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTurnstream } from "../helpers/cli.js";
import { OPENAB_TELEGRAM_FULL, openabTelegramFullResolved } from "../helpers/openabTelegram.js";

// `[telegram]` through the real CLI: an OpenAB section passes `check-config` unchanged, the
// tokens never show, and a broken section stops `run` with the same lines. No test here reaches
// a Bot API: checking a config connects to nothing.

const dir = mkdtempSync(join(tmpdir(), "turnstream-telegram-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = "7301245:AAH-c41f_tokenpart";
const SECRET = "webhook-c41f_secret";
// Every TELEGRAM_* variable is given or removed, so the developer's shell cannot change the outcome.
const NO_TELEGRAM_ENV = {
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

function expectNoSecret(...outputs: string[]): void {
  for (const output of outputs) {
    expect(output).not.toContain("c41f");
  }
}

describe("check-config with [telegram]", () => {
  it("passes OpenAB's documented section unchanged, as a webhook, the tokens from the environment masked (TOML and --json)", async () => {
    const file = configFile("openab-telegram.toml", OPENAB_TELEGRAM_FULL);
    const env = { ...NO_TELEGRAM_ENV, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_SECRET_TOKEN: SECRET };
    const [toml, json] = await Promise.all([runTurnstream(["check-config", file], { env }), runTurnstream(["check-config", "--json", file], { env })]);
    expect(toml).toMatchObject({ code: 0, stderr: "" });
    expect(toml.stdout).toContain(`# ${file}: valid; resolved with defaults, secrets masked\n`);
    expect(toml.stdout).toMatch(/\[telegram\]\nbot_token = "\*\*\*"\nsecret_token = "\*\*\*"\ntrusted_source_only = true\n/);
    expect(toml.stdout).toContain('mode = "webhook"\nwebhook_listen = "0.0.0.0:8080"\n');
    expect(json).toMatchObject({ code: 0, stderr: "" });
    expect((JSON.parse(json.stdout) as { telegram: unknown }).telegram).toEqual(openabTelegramFullResolved("***", "***"));
    expectNoSecret(toml.stdout, toml.stderr, json.stdout, json.stderr);
  });

  it("a token, allowed_users and [agent] are a whole config: it polls, the token masked", async () => {
    const file = configFile("minimal.toml", `[telegram]\nbot_token = "${TOKEN}"\nallowed_users = ["123456789"]\n\n[agent]\ncommand = "my-agent"\n`);
    const result = await runTurnstream(["check-config", "--json", file], { env: NO_TELEGRAM_ENV });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect((JSON.parse(result.stdout) as { telegram: unknown }).telegram).toMatchObject({ bot_token: "***", mode: "polling", allowed_users: ["123456789"], allow_all_users: false });
    expectNoSecret(result.stdout);
  });

  it("check-config and run refuse a broken section with the same lines, exit 2, no secret", async () => {
    const file = configFile(
      "broken.toml",
      `[telegram]\nbot_token = "\${TELEGRAM_BOT_TOKEN}"\nmode = "polling"\nwebhook_url = "https://bot.example.com/tg"\nsecret_token = "not valid ${SECRET}"\n`,
    );
    const env = { ...NO_TELEGRAM_ENV, HOME: dir, TELEGRAM_RICH_MESSAGES: "maybe" };
    const [checked, ran] = await Promise.all([runTurnstream(["check-config", file], { env }), runTurnstream(["run", "--config", file], { env })]);
    const expected = [
      "telegram.secret_token: a string (value hidden) is not allowed; expected 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule), or \"\" to read the environment",
      "telegram.bot_token: required: set it here or in the environment as TELEGRAM_BOT_TOKEN (the token @BotFather gave the bot)",
      'telegram.rich_messages: TELEGRAM_RICH_MESSAGES="maybe" in the environment is not allowed; expected true, false, 1 or 0',
    ];
    for (const result of [checked, ran]) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n").filter((line) => line !== "")).toEqual(expected.map((line) => `turnstream: ${file}: ${line}`));
      expectNoSecret(result.stderr);
    }
  });
});
