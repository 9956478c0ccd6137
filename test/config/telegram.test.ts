import { describe, expect, expectTypeOf, it } from "vitest";
import type { SkipConfig } from "../../operators/ingress/skipEvent.js";
import type { TrustConfig } from "../../operators/ingress/trustGate.js";
import { maskSecrets, parseConfigText, resolveConfig, secretValues, type TelegramConfig } from "../../src/config/index.js";
import { configSchema } from "../../src/config/schema.js";
import { TELEGRAM_ENV } from "../../src/config/sections/telegramEnv.js";
import { keysAt } from "../../src/config/shape.js";
import { createLogger } from "../../src/log/logger.js";
import { OPENAB_TELEGRAM_ACCESS, OPENAB_TELEGRAM_FULL, OPENAB_TELEGRAM_MINIMAL, openabTelegramFullResolved } from "../helpers/openabTelegram.js";
import { problemsOf, problemsOfToml } from "./problemsOf.js";

const TOKEN = "123456:AAF-token_9c0e";
const OTHER_TOKEN = "654321:BBG-token_77c1";
const SECRET = "s3cr3t-77c1_webhook";

function telegram(input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): TelegramConfig {
  const resolved = resolveConfig({ telegram: input }, { env }).telegram;
  if (resolved === undefined) throw new Error("no [telegram] in the resolved config");
  return resolved;
}

describe("[telegram]: upstream's keys, file → environment → default", () => {
  it("fills every default from a section with only a token", () => {
    expect(telegram({ bot_token: TOKEN })).toEqual({
      bot_token: TOKEN,
      trusted_source_only: false,
      rich_messages: true,
      streaming: true,
      webhook_path: "/webhook/telegram",
      allow_all_users: false,
      allowed_users: [],
      api_root: "https://api.telegram.org",
      mode: "polling",
      allow_all_channels: true,
      allowed_channels: [],
      allow_bot_messages: false,
      trusted_bot_ids: [],
    });
  });

  it("is absent when the section is, whatever the environment holds", () => {
    expect(resolveConfig({}, { env: { TELEGRAM_BOT_TOKEN: TOKEN } }).telegram).toBeUndefined();
  });

  // [key, value in the file, value in the environment, resolved from the environment, default]
  const fallbacks: readonly (readonly [keyof typeof TELEGRAM_ENV, unknown, string, unknown, unknown])[] = [
    ["secret_token", SECRET, "env-secret", "env-secret", undefined],
    ["trusted_source_only", true, "1", true, false],
    ["rich_messages", false, "false", false, true],
    ["streaming", false, "0", false, true],
    ["webhook_path", "/from/file", "/from/env", "/from/env", "/webhook/telegram"],
    ["allow_all_users", true, "TRUE", true, false],
    ["allowed_users", ["1"], " 2, 3 ,,4 ", ["2", "3", "4"], []],
  ];

  it.each(fallbacks)("%s: the file wins, else %s's variable, else the default", (key, inFile, inEnv, fromEnv, fallback) => {
    const env = { [TELEGRAM_ENV[key]]: inEnv };
    const base = { bot_token: TOKEN, mode: "webhook" };
    expect(telegram({ ...base, [key]: inFile }, env)[key]).toEqual(inFile);
    expect(telegram(base, env)[key]).toEqual(fromEnv);
    expect(telegram(base)[key]).toEqual(fallback);
    expect(telegram(base, { [TELEGRAM_ENV[key]]: "" })[key], "an empty variable is unset").toEqual(fallback);
  });

  it("bot_token: the file wins, else TELEGRAM_BOT_TOKEN", () => {
    expect(telegram({ bot_token: TOKEN }, { TELEGRAM_BOT_TOKEN: OTHER_TOKEN }).bot_token).toBe(TOKEN);
    expect(telegram({}, { TELEGRAM_BOT_TOKEN: OTHER_TOKEN }).bot_token).toBe(OTHER_TOKEN);
  });

  it('an empty string, as an unset ${VAR} leaves it, falls through to the variable (upstream), without a problem', () => {
    const env = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_SECRET_TOKEN: SECRET, TELEGRAM_WEBHOOK_PATH: "/hook" };
    const resolved = telegram({ bot_token: "${MY_UNSET_TOKEN}", secret_token: "${MY_UNSET_SECRET}", webhook_path: "" }, env);
    expect(resolved).toMatchObject({ bot_token: TOKEN, secret_token: SECRET, webhook_path: "/hook" });
    expect(telegram({ bot_token: "${TELEGRAM_BOT_TOKEN}", secret_token: "${TELEGRAM_SECRET_TOKEN}" }, { TELEGRAM_BOT_TOKEN: TOKEN }).secret_token).toBeUndefined();
  });

  it("an unset ${VAR} anywhere else in [telegram] is still a problem naming the key and the variable", () => {
    expect(problemsOf({ telegram: { bot_token: TOKEN, api_root: "${MY_API_ROOT}", allowed_users: ["${MY_USER}"] } })).toEqual([
      { path: "telegram.api_root", message: "${MY_API_ROOT} is not set in the environment" },
      { path: "telegram.allowed_users[0]", message: "${MY_USER} is not set in the environment" },
    ]);
  });

  it("a token in neither place is one line naming both, and only that line", () => {
    const expected = [{ path: "telegram.bot_token", message: "required: set it here or in the environment as TELEGRAM_BOT_TOKEN (the token @BotFather gave the bot)" }];
    expect(problemsOf({ telegram: {} })).toEqual(expected);
    expect(problemsOf({ telegram: { bot_token: "" } })).toEqual(expected);
    expect(problemsOf({ telegram: { bot_token: "${TELEGRAM_BOT_TOKEN}" } })).toEqual(expected);
  });

  it("a variable's flag reads true/1 and false/0 in any case; anything else is refused, quoted, with the variable named", () => {
    for (const [value, flag] of [["true", true], ["True", true], ["1", true], ["false", false], ["FALSE", false], ["0", false]] as const) {
      expect(telegram({ bot_token: TOKEN }, { TELEGRAM_ALLOW_ALL_USERS: value }).allow_all_users, value).toBe(flag);
    }
    expect(problemsOf({ telegram: { bot_token: TOKEN } }, { TELEGRAM_RICH_MESSAGES: "off", TELEGRAM_STREAMING: "yes" })).toEqual([
      { path: "telegram.rich_messages", message: 'TELEGRAM_RICH_MESSAGES="off" in the environment is not allowed; expected true, false, 1 or 0' },
      { path: "telegram.streaming", message: 'TELEGRAM_STREAMING="yes" in the environment is not allowed; expected true, false, 1 or 0' },
    ]);
  });

  it("streaming follows rich_messages unless set, from the file or the environment", () => {
    expect(telegram({ bot_token: TOKEN, rich_messages: false }).streaming).toBe(false);
    expect(telegram({ bot_token: TOKEN }, { TELEGRAM_RICH_MESSAGES: "0" }).streaming).toBe(false);
    expect(telegram({ bot_token: TOKEN, rich_messages: false, streaming: true }).streaming).toBe(true);
    expect(telegram({ bot_token: TOKEN, rich_messages: false }, { TELEGRAM_STREAMING: "1" }).streaming).toBe(true);
  });

  it("allowed_users from the file, even empty, is the list: deny all", () => {
    const resolved = telegram({ bot_token: TOKEN, allowed_users: [] }, { TELEGRAM_ALLOWED_USERS: "1,2" });
    expect(resolved).toMatchObject({ allowed_users: [], allow_all_users: false });
  });
});

describe("[telegram]: turnstream's keys", () => {
  it("polls unless a webhook key says otherwise; upstream's webhook keys without mode make a webhook, as upstream runs", () => {
    const webhookKeys: readonly [string, Record<string, unknown>, NodeJS.ProcessEnv][] = [
      ["secret_token", { secret_token: SECRET }, {}],
      ["TELEGRAM_SECRET_TOKEN", {}, { TELEGRAM_SECRET_TOKEN: SECRET }],
      ["webhook_path", { webhook_path: "/tg" }, {}],
      ["TELEGRAM_WEBHOOK_PATH", {}, { TELEGRAM_WEBHOOK_PATH: "/tg" }],
      ["trusted_source_only", { trusted_source_only: true }, {}],
      ["TELEGRAM_TRUSTED_SOURCE_ONLY", {}, { TELEGRAM_TRUSTED_SOURCE_ONLY: "true" }],
      ["webhook_url", { webhook_url: "https://bot.example.com/tg" }, {}],
      ["webhook_listen", { webhook_listen: "127.0.0.1:9000" }, {}],
    ];
    for (const [name, keys, env] of webhookKeys) expect(telegram({ bot_token: TOKEN, ...keys }, env).mode, name).toBe("webhook");
    expect(telegram({ bot_token: TOKEN, trusted_source_only: false }).mode).toBe("polling");
    expect(telegram({ bot_token: TOKEN, mode: "POLLING", secret_token: SECRET }).mode).toBe("polling");
  });

  it("listens on 0.0.0.0:8080 in webhook mode (upstream's gateway address), and on nothing when polling", () => {
    expect(telegram({ bot_token: TOKEN, mode: "webhook" }).webhook_listen).toBe("0.0.0.0:8080");
    expect(telegram({ bot_token: TOKEN, mode: "webhook", webhook_listen: "[::1]:0" }).webhook_listen).toBe("[::1]:0");
    expect(telegram({ bot_token: TOKEN }).webhook_listen).toBeUndefined();
  });

  it("api_root: any http(s) URL, kept without a trailing slash", () => {
    expect(telegram({ bot_token: TOKEN, api_root: "http://127.0.0.1:8081/" }).api_root).toBe("http://127.0.0.1:8081");
    expect(telegram({ bot_token: TOKEN, api_root: "https://bots.example.com/api//" }).api_root).toBe("https://bots.example.com/api");
  });

  it("the group trust keys as [gateway] has them: channels open unless listed, bots refused unless trusted", () => {
    expect(telegram({ bot_token: TOKEN, allowed_channels: ["-100123"] })).toMatchObject({ allow_all_channels: false, allowed_channels: ["-100123"] });
    expect(telegram({ bot_token: TOKEN, allowed_channels: ["-100123"], allow_all_channels: true }).allow_all_channels).toBe(true);
    expect(telegram({ bot_token: TOKEN, allow_all_channels: false }).allow_all_channels).toBe(false);
    expect(telegram({ bot_token: TOKEN, allow_bot_messages: true, trusted_bot_ids: ["42"] })).toMatchObject({ allow_bot_messages: true, trusted_bot_ids: ["42"] });
  });

  it("the resolved section is the edge's skip and trust rules as it is", () => {
    expectTypeOf<TelegramConfig>().toExtend<TrustConfig>();
    expectTypeOf<TelegramConfig>().toExtend<Omit<SkipConfig, "bot_username">>();
  });
});

describe("[telegram]: every problem at once, one line each, no secret quoted", () => {
  it("refuses bad values of every key, the secrets by kind only", () => {
    const problems = problemsOf({
      telegram: {
        bot_token: "not-a-token 9c0e",
        secret_token: "has spaces 77c1",
        webhook_path: "webhook",
        api_root: "ftp://bots.example.com",
        mode: "push",
        webhook_url: "http://bot.example.com/tg",
        webhook_listen: "8080",
        allowed_users: [12345678],
        allow_bot_messages: "yes",
        reply_to_mode: "all",
      },
    });
    expect(problems.map((problem) => problem.path)).toEqual([
      "telegram.bot_token",
      "telegram.secret_token",
      "telegram.webhook_path",
      "telegram.allowed_users[0]",
      "telegram.api_root",
      "telegram.mode",
      "telegram.webhook_url",
      "telegram.webhook_listen",
      "telegram.allow_bot_messages",
      "telegram.reply_to_mode",
    ]);
    expect(problems[0]?.message).toMatch(/^a string \(value hidden\) is not allowed; expected a bot token as @BotFather gives it/);
    expect(problems[1]?.message).toMatch(/^a string \(value hidden\) is not allowed; expected 1 to 256 characters of A-Z, a-z, 0-9, _ and -/);
    expect(problems.find((problem) => problem.path === "telegram.webhook_url")?.message).toBe('"http://bot.example.com/tg" is not allowed; expected a https:// URL');
    expect(problems.find((problem) => problem.path === "telegram.mode")?.message).toBe('"push" is not allowed; expected one of polling, webhook');
    expect(JSON.stringify(problems)).not.toMatch(/9c0e|77c1/);
  });

  it("secret_token: Telegram's 1–256 characters of A-Za-z0-9_-", () => {
    expect(telegram({ bot_token: TOKEN, secret_token: "a".repeat(256) }).secret_token).toHaveLength(256);
    expect(problemsOf({ telegram: { bot_token: TOKEN, secret_token: "a".repeat(257) } })).toHaveLength(1);
  });

  it("refuses a variable's bad value at its key, naming the variable, never its value", () => {
    const env = { TELEGRAM_BOT_TOKEN: "bot 9c0e", TELEGRAM_SECRET_TOKEN: "secret!77c1", TELEGRAM_WEBHOOK_PATH: "tg" };
    const problems = problemsOf({ telegram: {} }, env);
    expect(problems).toEqual([
      { path: "telegram.bot_token", message: "TELEGRAM_BOT_TOKEN in the environment (value hidden) is not allowed; expected a bot token as @BotFather gives it: digits, a colon, then letters, digits, _ and -" },
      { path: "telegram.secret_token", message: "TELEGRAM_SECRET_TOKEN in the environment (value hidden) is not allowed; expected 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)" },
      { path: "telegram.webhook_path", message: 'TELEGRAM_WEBHOOK_PATH in the environment (value hidden) is not allowed; expected a path starting with "/", without spaces, "?" or "#"' },
    ]);
  });

  it("lists its keys when one is misspelt", () => {
    const [problem] = problemsOf({ telegram: { bot_token: TOKEN, alowed_users: ["1"] } });
    expect(problem?.message).toMatch(/^unknown key \(did you mean "allowed_users"\?\); allowed keys: bot_token, secret_token, /);
  });
});

describe("[telegram]: secrets", () => {
  it("masks bot_token and secret_token wherever they came from, and the URL keys' credentials", () => {
    const config = resolveConfig({ telegram: { api_root: "https://user:pw-9c0e@bots.example.com", webhook_url: "https://bot.example.com/tg?token=hook-77c1" } }, { env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_SECRET_TOKEN: SECRET } });
    expect(maskSecrets(config).telegram).toMatchObject({
      bot_token: "***",
      secret_token: "***",
      api_root: "https://***@bots.example.com",
      webhook_url: "https://bot.example.com/tg?token=***",
    });
    expect(secretValues(config)).toEqual(expect.arrayContaining([TOKEN, SECRET, "user", "pw-9c0e", "hook-77c1"]));
  });

  it("the broker's logger masks the token where a library would print it: inside a Bot API URL", () => {
    const config = resolveConfig({ telegram: {} }, { env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_SECRET_TOKEN: SECRET } });
    const lines: string[] = [];
    const logger = createLogger({ level: "info", secrets: secretValues(config), destination: { write: (line: string) => void lines.push(line) } });
    logger.warn({ reason: "example", url: `https://api.telegram.org/bot${TOKEN}/getMe`, header: SECRET }, "telegram request failed");
    expect(lines.join("")).not.toMatch(/token_9c0e|77c1_webhook/);
    expect(lines.join("")).toContain("https://api.telegram.org/bot***/getMe");
  });
});

describe("an OpenAB [telegram] section, as OpenAB documents it", () => {
  it("every one of upstream's keys is a key of the section", () => {
    expect(keysAt(configSchema, ["telegram"])).toEqual(expect.arrayContaining(Object.keys(TELEGRAM_ENV)));
  });

  it("the full example drops in: a webhook, as upstream runs it", () => {
    const config = parseConfigText(OPENAB_TELEGRAM_FULL, { env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_SECRET_TOKEN: SECRET } });
    expect(config.telegram).toEqual(openabTelegramFullResolved(TOKEN, SECRET));
    // TELEGRAM_SECRET_TOKEN unset: upstream runs without the header check, and so does turnstream.
    expect(parseConfigText(OPENAB_TELEGRAM_FULL, { env: { TELEGRAM_BOT_TOKEN: TOKEN } }).telegram?.secret_token).toBeUndefined();
  });

  it("the minimal and access-control examples drop in and poll", () => {
    expect(parseConfigText(OPENAB_TELEGRAM_MINIMAL, { env: { TELEGRAM_BOT_TOKEN: TOKEN } }).telegram).toMatchObject({ mode: "polling", allow_all_users: false, allowed_users: [] });
    expect(parseConfigText(OPENAB_TELEGRAM_ACCESS, { env: { TELEGRAM_BOT_TOKEN: TOKEN } }).telegram).toMatchObject({ mode: "polling", allowed_users: ["12345678", "87654321"] });
  });

  it("without TELEGRAM_BOT_TOKEN, the one line", () => {
    expect(problemsOfToml(OPENAB_TELEGRAM_MINIMAL)).toEqual([
      { path: "telegram.bot_token", message: "required: set it here or in the environment as TELEGRAM_BOT_TOKEN (the token @BotFather gave the bot)" },
    ]);
  });
});
