import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/index.js";
import { problemsOf } from "../problemsOf.js";

const SECRET = "alerts-secret-7f3a9c1e5b2d";
const TELEGRAM = { bot_token: "123456:AAF-token_3b1d" };
const endpoint = (keys: Record<string, unknown> = {}) => ({ path: "/hooks/alerts", secret: SECRET, platform: "telegram", channel: "123", ...keys });

describe("[webhooks] cross-key checks", () => {
  it("refuses a path or a name two endpoints share (a name defaults to the path)", () => {
    const problems = problemsOf({
      telegram: TELEGRAM,
      webhooks: { endpoints: [endpoint(), endpoint({ name: "b" }), endpoint({ path: "/c", name: "/hooks/alerts" })] },
    });
    expect(problems).toEqual([
      { path: "webhooks.endpoints[1].path", message: `"/hooks/alerts" is also webhooks.endpoints[0]'s path: give each endpoint its own` },
      { path: "webhooks.endpoints[2].name", message: `"/hooks/alerts" is also webhooks.endpoints[0]'s name (a name defaults to the path): give each endpoint its own, it keeps their event ids apart` },
    ]);
  });

  it("refuses a platform no section speaks to, and accepts any platform a [gateway] may carry", () => {
    expect(problemsOf({ telegram: TELEGRAM, webhooks: { endpoints: [endpoint({ platform: "discord" }), endpoint({ path: "/b", platform: "line" })] } })).toEqual([
      { path: "webhooks.endpoints[0].platform", message: '"discord" is spoken to by no section of this file: add [discord], or a [gateway] that carries it' },
      { path: "webhooks.endpoints[1].platform", message: '"line" is spoken to by no section of this file: add a [gateway] that carries it, or name telegram, discord or slack with its section' },
    ]);
    const gateway = { url: "ws://127.0.0.1:8080/ws" };
    expect(resolveConfig({ gateway, webhooks: { endpoints: [endpoint({ platform: "line" }), endpoint({ path: "/b" })] } }, { env: {} }).webhooks.endpoints).toHaveLength(2);
  });

  it("refuses a listen address [metrics] or Telegram's webhook listener takes, and only when both listen", () => {
    const webhooks = { listen: "0.0.0.0:8080", endpoints: [endpoint()] };
    expect(problemsOf({ telegram: TELEGRAM, metrics: { enabled: true, listen: "127.0.0.1:8080" }, webhooks })).toEqual([
      { path: "webhooks.listen", message: '"0.0.0.0:8080" and metrics.listen ("127.0.0.1:8080") would take the same port in one process: give one of them another port' },
    ]);
    expect(problemsOf({ telegram: { ...TELEGRAM, mode: "webhook", webhook_listen: "127.0.0.1:8080" }, webhooks })).toEqual([
      { path: "webhooks.listen", message: '"0.0.0.0:8080" and telegram.webhook_listen ("127.0.0.1:8080") would take the same port in one process: give one of them another port' },
    ]);
    expect(() => resolveConfig({ telegram: TELEGRAM, metrics: { enabled: false, listen: "127.0.0.1:8080" }, webhooks }, { env: {} })).not.toThrow();
    // No endpoint, no listener: the default address collides with nothing.
    expect(() => resolveConfig({ metrics: { enabled: true, listen: "127.0.0.1:8790" } }, { env: {} })).not.toThrow();
  });
});
