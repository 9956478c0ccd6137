import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/index.js";
import { listenersCollide } from "../../../src/config/problems/telegramChecks.js";
import { problemsOf } from "../problemsOf.js";

const TOKEN = "123456:AAF-token_3b1d";
const POLLING = 'mode = "polling" asks Telegram for updates with getUpdates and receives no webhook requests';

describe("[telegram] cross-key checks", () => {
  it('refuses every webhook key beside mode = "polling", one line each, never a value', () => {
    const problems = problemsOf({
      telegram: { bot_token: TOKEN, mode: "polling", webhook_url: "https://bot.example.com/tg?token=hook-3b1d", webhook_listen: "0.0.0.0:8443", trusted_source_only: true },
    });
    expect(problems).toEqual([
      { path: "telegram.webhook_url", message: `is registered with setWebhook, and ${POLLING}: set mode = "webhook", or remove webhook_url` },
      { path: "telegram.webhook_listen", message: `is where webhook requests are received, and ${POLLING}: set mode = "webhook", or remove webhook_listen` },
      {
        path: "telegram.trusted_source_only",
        message: `true checks where webhook requests come from, and ${POLLING}: set mode = "webhook", or trusted_source_only = false (TELEGRAM_TRUSTED_SOURCE_ONLY in the environment counts too)`,
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain("3b1d");
  });

  it("counts trusted_source_only from the environment too", () => {
    expect(problemsOf({ telegram: { bot_token: TOKEN, mode: "polling" } }, { TELEGRAM_TRUSTED_SOURCE_ONLY: "1" }).map((problem) => problem.path)).toEqual(["telegram.trusted_source_only"]);
  });

  it("accepts the same keys in webhook mode, and a polling section that sets none", () => {
    const webhook = { bot_token: TOKEN, webhook_url: "https://bot.example.com/tg", webhook_listen: "127.0.0.1:8443", trusted_source_only: true };
    expect(resolveConfig({ telegram: webhook }, { env: {} }).telegram?.mode).toBe("webhook");
    expect(resolveConfig({ telegram: { ...webhook, mode: "webhook" } }, { env: {} }).telegram?.mode).toBe("webhook");
    expect(resolveConfig({ telegram: { bot_token: TOKEN, mode: "polling", secret_token: "unused-by-polling" } }, { env: {} }).telegram?.mode).toBe("polling");
  });

  it("refuses a webhook listener on the port [metrics] listens on, and only when both listen", () => {
    expect(problemsOf({ telegram: { bot_token: TOKEN, mode: "webhook" }, metrics: { enabled: true, listen: "127.0.0.1:8080" } })).toEqual([
      { path: "telegram.webhook_listen", message: '"0.0.0.0:8080" and metrics.listen ("127.0.0.1:8080") would take the same port in one process: give one of them another port' },
    ]);
    expect(() => resolveConfig({ telegram: { bot_token: TOKEN, mode: "webhook" }, metrics: { enabled: false, listen: "127.0.0.1:8080" } }, { env: {} })).not.toThrow();
    expect(() => resolveConfig({ telegram: { bot_token: TOKEN, mode: "webhook" }, metrics: { enabled: true } }, { env: {} })).not.toThrow();
  });

  it("a check that would read a refused key does not run", () => {
    expect(problemsOf({ telegram: { bot_token: TOKEN, mode: "polling", webhook_url: "ftp://x" } }).map((problem) => problem.path)).toEqual(["telegram.webhook_url"]);
  });
});

describe("listenersCollide", () => {
  it.each([
    ["127.0.0.1:8080", "127.0.0.1:8080", true],
    ["0.0.0.0:8080", "127.0.0.1:8080", true],
    ["[::]:9464", "[::1]:9464", true],
    ["LOCALHOST:1", "localhost:1", true],
    ["127.0.0.1:8080", "127.0.0.2:8080", false],
    ["0.0.0.0:8080", "0.0.0.0:8081", false],
    ["0.0.0.0:0", "0.0.0.0:0", false],
    ["not an address", "0.0.0.0:1", false],
  ])("%s and %s: %s", (a, b, collide) => {
    expect(listenersCollide(a, b)).toBe(collide);
    expect(listenersCollide(b, a)).toBe(collide);
  });
});
