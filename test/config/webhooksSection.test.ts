import { describe, expect, it } from "vitest";
import { maskSecrets, parseConfigText, resolveConfig } from "../../src/config/index.js";
import { problemsOf, problemsOfToml } from "./problemsOf.js";

const SECRET = "alerts-secret-7f3a9c1e5b2d";
const TELEGRAM = { bot_token: "123456:AAF-token_3b1d" };

/** One endpoint with its required keys; override what a test is about. */
const endpoint = (keys: Record<string, unknown> = {}) => ({ path: "/hooks/alerts", secret: SECRET, platform: "telegram", channel: "123", ...keys });

describe("[webhooks]: the listener and its endpoints", () => {
  it("reads the issue's example from TOML, every default filled", () => {
    const config = parseConfigText(
      `
[telegram]
bot_token = "123456:AAF-token_3b1d"

[webhooks]
listen = "127.0.0.1:8790"
max_body_bytes = 1048576

[[webhooks.endpoints]]
name = "alerts"
path = "/hooks/alerts"
secret = "\${ALERTS_SECRET}"
platform = "Telegram"
channel = "123"
thread_id = "7"
event_id_header = "X-GitHub-Delivery"
prompt = "New alert: {{/alert/title}}"

[[webhooks.endpoints]]
path = "/hooks/deploys"
auth = "bearer"
secret = "deploy-token-0123456789"
platform = "telegram"
channel = "-100200"
event_id_pointer = "/id"
rate_per_minute = 5
max_body_bytes = 4096
`,
      { env: { ALERTS_SECRET: SECRET } },
    );
    expect(config.webhooks).toEqual({
      listen: "127.0.0.1:8790",
      max_body_bytes: 1_048_576,
      endpoints: [
        {
          name: "alerts",
          path: "/hooks/alerts",
          auth: "hmac",
          secret: SECRET,
          signature_header: "X-Hub-Signature-256",
          platform: "telegram",
          channel: "123",
          thread_id: "7",
          event_id_header: "X-GitHub-Delivery",
          prompt: "New alert: {{/alert/title}}",
          rate_per_minute: 60,
        },
        { name: "/hooks/deploys", path: "/hooks/deploys", auth: "bearer", secret: "deploy-token-0123456789", platform: "telegram", channel: "-100200", event_id_pointer: "/id", rate_per_minute: 5, max_body_bytes: 4096 },
      ],
    });
  });

  it("masks every endpoint's secret where a config is printed", () => {
    const config = resolveConfig({ telegram: TELEGRAM, webhooks: { endpoints: [endpoint(), endpoint({ path: "/b", secret: "another-secret-0123456" })] } }, { env: {} });
    const printed = JSON.stringify(maskSecrets(config));
    expect(printed).not.toContain(SECRET);
    expect(printed).not.toContain("another-secret-0123456");
    expect(maskSecrets(config).webhooks.endpoints.map((e) => e.secret)).toEqual(["***", "***"]);
  });

  it("refuses each bad key on its own line, never quoting a secret", () => {
    const problems = problemsOf({
      telegram: TELEGRAM,
      webhooks: {
        endpoints: [
          endpoint({ path: "hooks", secret: "short-9k2", auth: "basic", signature_header: "X Sig", event_id_pointer: "id", prompt: "Alert {{/a", rate_per_minute: 0, max_body_bytes: 0 }),
        ],
      },
    });
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'webhooks.endpoints[0].path: "hooks" is not allowed; expected a path starting with "/", at most 200 characters of A-Z a-z 0-9 . _ ~ / -',
      'webhooks.endpoints[0].auth: "basic" is not allowed; expected one of hmac, bearer',
      "webhooks.endpoints[0].secret: is shorter than 16 characters (value hidden); expected at least 16 characters (for example from `openssl rand -hex 32`)",
      "webhooks.endpoints[0].signature_header: \"X Sig\" is not allowed; expected an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)",
      'webhooks.endpoints[0].event_id_pointer: "id" is not allowed; expected an RFC 6901 JSON pointer such as "/id" ("" for the whole body) (it starts with "/", or is "" for the whole body)',
      'webhooks.endpoints[0].prompt: is not a prompt template: "{{" at character 7 is never closed with "}}"; expected text with {{<json pointer>}} substitutions, such as "New alert: {{/alert/title}}"',
      "webhooks.endpoints[0].rate_per_minute: 0 is not allowed; expected an integer from 1 to 10000",
      "webhooks.endpoints[0].max_body_bytes: 0 is not allowed; expected an integer from 1 to 67108864 (64 MiB: a body is held in memory whole)",
    ]);
    expect(JSON.stringify(problems)).not.toContain("short-9k2");
  });

  it("requires path, secret, platform and channel", () => {
    expect(problemsOf({ webhooks: { endpoints: [{}] } }).map((p) => p.path)).toEqual([
      "webhooks.endpoints[0].path",
      "webhooks.endpoints[0].secret",
      "webhooks.endpoints[0].platform",
      "webhooks.endpoints[0].channel",
    ]);
  });

  it("refuses an empty secret as an unset variable would leave it, naming the variable", () => {
    expect(problemsOfToml(`[telegram]\nbot_token = "123456:AAF-token_3b1d"\n[[webhooks.endpoints]]\npath = "/a"\nsecret = "\${HOOK_SECRET}"\nplatform = "telegram"\nchannel = "1"\n`)).toEqual([
      { path: "webhooks.endpoints[0].secret", message: "${HOOK_SECRET} is not set in the environment" },
    ]);
    expect(problemsOf({ telegram: TELEGRAM, webhooks: { endpoints: [endpoint({ secret: "" })] } })).toEqual([
      { path: "webhooks.endpoints[0].secret", message: "is empty (an unset ${VAR}?); expected at least 16 characters (for example from `openssl rand -hex 32`)" },
    ]);
  });

  it("refuses keys that would do nothing: a signature header with a bearer, two event id sources, listener keys without endpoints", () => {
    expect(problemsOf({ telegram: TELEGRAM, webhooks: { endpoints: [endpoint({ auth: "bearer", signature_header: "X-Sig", event_id_header: "X-Id", event_id_pointer: "/id" })] } })).toEqual([
      { path: "webhooks.endpoints[0].signature_header", message: 'names where an HMAC signature is read, and auth = "bearer" reads the Authorization header: remove signature_header, or set auth = "hmac"' },
      { path: "webhooks.endpoints[0].event_id_pointer", message: "is given beside event_id_header, and both say where the event id is: keep one of them" },
    ]);
    expect(problemsOf({ webhooks: { listen: "127.0.0.1:9000", max_body_bytes: 10 } })).toEqual([
      { path: "webhooks.listen", message: "is for the webhook listener, which runs only with [[webhooks.endpoints]]: add an endpoint, or remove the key" },
      { path: "webhooks.max_body_bytes", message: "is for the webhook listener, which runs only with [[webhooks.endpoints]]: add an endpoint, or remove the key" },
    ]);
  });

  it("refuses a bearer secret that cannot travel in a header, without quoting it", () => {
    const problems = problemsOf({ telegram: TELEGRAM, webhooks: { endpoints: [endpoint({ auth: "bearer", secret: "has a space in it 0123" })] } });
    expect(problems).toEqual([
      { path: "webhooks.endpoints[0].secret", message: 'holds a space or a character outside visible ASCII (value hidden), and auth = "bearer" sends it in the Authorization header: use visible ASCII only' },
    ]);
  });

  it("reports a bad key of one endpoint and the others' problems together", () => {
    const problems = problemsOf({ telegram: TELEGRAM, webhooks: { endpoints: [endpoint({ rate_per_minute: -1 }), endpoint({ path: "/b", channel: "" })] } });
    expect(problems.map((p) => p.path)).toEqual(["webhooks.endpoints[0].rate_per_minute", "webhooks.endpoints[1].channel"]);
  });
});
