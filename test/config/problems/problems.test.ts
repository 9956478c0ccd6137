import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/index.js";
import { problemsOf, problemsOfToml, rejection } from "../problemsOf.js";

describe("config problems", () => {
  it("rejects an unknown delivery mode with the allowed values and aliases", () => {
    const problems = problemsOfToml(`[delivery]\nmode = "bubblez"\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe("delivery.mode");
    expect(problems[0]?.message).toContain(`"bubblez"`);
    expect(problems[0]?.message).toContain("text, structured, sequential");
    expect(problems[0]?.message).toBe(
      `"bubblez" is not allowed; expected one of text, structured, sequential (aliases: plain, off, bubbles)`,
    );
  });

  it("names a misspelled section and suggests the right one", () => {
    const problems = problemsOfToml(`[gatway]\nurl = "ws://x"\n`);
    expect(problems).toEqual([
      {
        path: "gatway",
        message: expect.stringMatching(/^unknown key \(did you mean "gateway"\?\); allowed keys: gateway, agent, /) as unknown,
      },
    ]);
  });

  it("names an unknown nested key by its full path, one problem per key", () => {
    const problems = problemsOf({ reactions: { timing: { stall_sfot_ms: 1, zzz: 2 } } });
    expect(problems.map((problem) => problem.path)).toEqual(["reactions.timing.stall_sfot_ms", "reactions.timing.zzz"]);
    expect(problems[0]?.message).toContain(`did you mean "stall_soft_ms"?`);
    expect(problems[1]?.message).toBe(
      "unknown key; allowed keys: debounce_ms, stall_soft_ms, stall_hard_ms, done_hold_ms, error_hold_ms",
    );
  });

  it("does not suggest a key for a wild guess", () => {
    expect(problemsOf({ x: 1 })[0]?.message).toMatch(/^unknown key; allowed keys: /);
  });

  it.each([
    [{ log: { pretty: "yes" } }, "log.pretty", `expected a boolean, got string "yes"`],
    [{ pool: { max_sessions: "10" } }, "pool.max_sessions", `expected an integer ≥ 1, got string "10"`],
    [{ gateway: { url: "ws://x", allowed_users: "alice" } }, "gateway.allowed_users", `expected an array of strings, got string "alice"`],
    [{ gateway: { url: "ws://x", allowed_users: ["a", 2] } }, "gateway.allowed_users[1]", "expected a string, got integer 2"],
    [{ pool: { max_sessions: 4.5 } }, "pool.max_sessions", "expected an integer ≥ 1, got float 4.5"],
    [{ pool: { max_sessions: 0 } }, "pool.max_sessions", "0 is not allowed; expected an integer ≥ 1"],
    [{ queue: { debounce_ms: -1 } }, "queue.debounce_ms", "-1 is not allowed; expected an integer ≥ 0"],
    [{ bus: { partitions: 1025 } }, "bus.partitions", "1025 is not allowed; expected an integer from 1 to 1024"],
    [{ pool: { session_ttl_hours: 0 } }, "pool.session_ttl_hours", "0 is not allowed; expected a number > 0"],
    [{ delivery: { schema: "" } }, "delivery.schema", `"" is not allowed; expected a non-empty string`],
    [{ agent: { env: { PORT: 8080 } } }, "agent.env.PORT", "expected a string, got an integer (value hidden)"],
    [{ inbound: { debounce_by_platform: { telegram: -5 } } }, "inbound.debounce_by_platform.telegram", "-5 is not allowed; expected an integer ≥ 0"],
    [{ delivery: "text" }, "delivery", `expected a table, got string "text"`],
  ])("reports a bad value in %j", (input, path, message) => {
    expect(problemsOf(input)).toEqual([{ path, message }]);
  });

  it("reports a bigint (only a programmatic caller can pass one) as out of range", () => {
    expect(problemsOf({ pool: { max_sessions: 10n ** 20n } })).toEqual([
      { path: "pool.max_sessions", message: "100000000000000000000 is out of range; expected an integer ≥ 1" },
    ]);
  });

  it("says which kind of value a wrong-typed TOML value is", () => {
    expect(problemsOfToml(`[pool]\nmax_sessions = 2.5\n`)).toEqual([
      { path: "pool.max_sessions", message: "expected an integer ≥ 1, got float 2.5" },
    ]);
    expect(problemsOfToml(`[triage]\ntimezone = 1979-05-27T07:32:00Z\n`)).toEqual([
      { path: "triage.timezone", message: `expected an IANA timezone such as "Europe/Berlin", got datetime 1979-05-27T07:32:00.000Z` },
    ]);
    expect(problemsOfToml(`[gateway]\nurl = "ws://x"\ntrusted_bot_ids = [1, 2]\n`).map((problem) => problem.path)).toEqual([
      "gateway.trusted_bot_ids[0]",
      "gateway.trusted_bot_ids[1]",
    ]);
  });

  it("requires gateway.url when [gateway] is present", () => {
    expect(problemsOfToml(`[gateway]\nplatform = "discord"\n`)).toEqual([
      { path: "gateway.url", message: "required; expected a ws:// or wss:// URL" },
    ]);
  });

  it.each(["http://gateway:8080/ws", "gateway:8080", "ws://", ""])("rejects gateway.url %j", (url) => {
    expect(problemsOf({ gateway: { url } })).toEqual([
      { path: "gateway.url", message: `${JSON.stringify(url)} is not allowed; expected a ws:// or wss:// URL` },
    ]);
  });

  it.each(["http://nats:4222", "nats"])("rejects bus.url %j", (url) => {
    expect(problemsOf({ bus: { url } })[0]?.message).toContain("expected a nats:// or tls:// URL");
  });

  it.each(["a..b", "a.*", "a b", "x.>", ".a", ""])("rejects bus.prefix %j", (prefix) => {
    expect(problemsOf({ bus: { prefix } })[0]?.path).toBe("bus.prefix");
  });

  it.each(["8765", "localhost", "host:65536", "[nope]:80", ":80", "::1:80"])("rejects listen address %j", (listen) => {
    expect(problemsOf({ dev_gateway: { listen } })[0]?.message).toContain(`expected "host:port"`);
  });

  it.each(["25:00-07:00", "7-9", "07:00", "22:60-07:00", "x:y-1:2", "22:00/08:00"])("rejects quiet_hours %j", (quietHours) => {
    const problems = problemsOf({ triage: { quiet_hours: quietHours } });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe("triage.quiet_hours");
    expect(problems[0]?.message).toContain(`${JSON.stringify(quietHours)} is not allowed; expected "HH:MM-HH:MM" with 24-hour times`);
  });

  it("rejects an unknown timezone", () => {
    expect(problemsOf({ triage: { timezone: "Mars/Base" } })).toEqual([
      { path: "triage.timezone", message: `"Mars/Base" is not a known IANA timezone` },
    ]);
  });

  it.each(["steer", "Steering"])("refuses queue.mode %j with the reason", (mode) => {
    expect(problemsOf({ queue: { mode } })).toEqual([
      {
        path: "queue.mode",
        message: `${JSON.stringify(mode)} is not supported: ACP cannot inject into a running turn; use collect, followup or interrupt`,
      },
    ]);
  });

  it("reports every problem at once, not just the first", () => {
    const toml = `
[gatway]
[gateway]
streaming = "yes"
[delivery]
mode = "bubblez"
[triage]
quiet_hours = "7-9"
timezone = "Mars/Base"
[queue]
mode = "steer"
cap = 0
`;
    const paths = problemsOfToml(toml).map((problem) => problem.path);
    expect(paths.sort()).toEqual(
      ["gatway", "gateway.url", "gateway.streaming", "delivery.mode", "triage.quiet_hours", "triage.timezone", "queue.mode", "queue.cap"].sort(),
    );
  });

  it("reports a non-table config as one problem with an empty path", () => {
    expect(problemsOf("hello")).toEqual([{ path: "", message: `expected a table, got string "hello"` }]);
    expect(problemsOf(null)).toEqual([{ path: "", message: "expected a table, got null" }]);
  });

  it("cuts long values short so a problem stays one line", () => {
    const message = problemsOf({ delivery: { mode: "x".repeat(500) } })[0]?.message ?? "";
    expect(message.length).toBeLessThan(200);
    expect(message).toContain("…");
    expect(message).not.toContain("\n");
  });
});

describe("features turnstream does not build", () => {
  it.each(["structured", "sequential"])("refuses [gateway] streaming = true with delivery.mode = %s: bubbles are never streamed", async (mode) => {
    const { resolveConfig, ConfigError } = await import("../../../src/config/index.js");
    let error: unknown;
    try {
      resolveConfig({ gateway: { url: "ws://127.0.0.1:8080/ws", streaming: true }, delivery: { mode } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as InstanceType<typeof ConfigError>).lines()).toEqual([
      `gateway.streaming: true edits one message in place as a text reply is written, and [delivery] mode = "${mode}" sends bubbles: set streaming = false, or delivery.mode = "text"`,
    ]);
  });

  it("accepts [gateway] streaming = true in text mode", async () => {
    const { resolveConfig } = await import("../../../src/config/index.js");
    expect(resolveConfig({ gateway: { url: "ws://127.0.0.1:8080/ws", streaming: true } }).gateway?.streaming).toBe(true);
  });

  it.each([
    [
      { pool: { preload_persisted_sessions: true }, bus: { url: "nats://127.0.0.1:4222" } },
      "pool.preload_persisted_sessions: true restores one process's saved sessions, and with [bus] url set workers share them and each resumes a conversation's session on its next turn: set preload_persisted_sessions = false, or leave bus.url unset",
    ],
    [
      { gateway: { url: "ws://127.0.0.1:8080/ws", message_processing_mode: "per-thread" }, queue: { mode: "followup" } },
      'gateway.message_processing_mode: "per-thread" batches the messages that arrive during a turn, but [queue] mode = "followup" runs each as its own turn: set queue.mode = "collect" or message_processing_mode = "per-message"',
    ],
    [
      { gateway: { url: "ws://127.0.0.1:8080/ws", message_processing_mode: "per-lane" }, queue: { mode: "interrupt" } },
      'gateway.message_processing_mode: "per-lane" batches the messages that arrive during a turn, but [queue] mode = "interrupt" runs only the newest: set queue.mode = "collect" or message_processing_mode = "per-message"',
    ],
    [
      { gateway: { url: "ws://127.0.0.1:8080/ws", max_buffered_messages: 20 } },
      'gateway.max_buffered_messages: bounds a per-thread or per-lane batch, and message_processing_mode is "per-message", where none forms: set message_processing_mode = "per-thread" or "per-lane", or remove the key',
    ],
    [
      { gateway: { url: "ws://127.0.0.1:8080/ws", max_batch_tokens: 1000 } },
      'gateway.max_batch_tokens: bounds a per-thread or per-lane batch, and message_processing_mode is "per-message", where none forms: set message_processing_mode = "per-thread" or "per-lane", or remove the key',
    ],
    [{ activity: { enabled: true }, reactions: { tool_display: "none" } }, 'activity.enabled: true lists tool calls, and [reactions] tool_display = "none" hides them: set one of them otherwise'],
    [
      { gateway: { url: "ws://127.0.0.1:8080/ws", telegram_rich_messages: false } },
      "gateway.telegram_rich_messages: false is not supported: turnstream converts no Markdown tables, so replies keep their tables as written (set telegram_rich_messages = true)",
    ],
    [{ reactions: { mapping: { "👀": "queued" } } }, "reactions.mapping: is not supported yet: reactions show as emoji where the platform takes them, and as nothing elsewhere (remove [reactions.mapping])"],
  ])("refuses %j with one clear line instead of accepting it and doing nothing", async (input, line) => {
    const { resolveConfig, ConfigError } = await import("../../../src/config/index.js");
    expect(() => resolveConfig({ gateway: { url: "ws://127.0.0.1:8080/ws" }, ...input })).toThrow(ConfigError);
    expect.assertions(2);
    try {
      resolveConfig({ gateway: { url: "ws://127.0.0.1:8080/ws" }, ...input });
    } catch (err) {
      expect((err as InstanceType<typeof ConfigError>).lines()).toEqual([line]);
    }
  });
});

describe("batching and [queue]", () => {
  it.each(["per-thread", "per-lane"])("accepts %s with [queue] mode = \"collect\" (the default) and any batch size", async (mode) => {
    const { resolveConfig } = await import("../../../src/config/index.js");
    const config = resolveConfig({ gateway: { url: "ws://127.0.0.1:8080/ws", message_processing_mode: mode, max_buffered_messages: 3, max_batch_tokens: 500 } });
    expect(config.gateway).toMatchObject({ message_processing_mode: mode, max_buffered_messages: 3, max_batch_tokens: 500 });
    expect(config.queue.mode).toBe("collect");
  });
});

describe("config problems under secret keys", () => {
  const SECRET = "s3cr3t-4d1f";
  it.each([
    [{ gateway: { url: "ws://x", token: [SECRET] } }, "gateway.token", "expected a string, got an array (value hidden)"],
    [{ dev_gateway: { token: { value: SECRET } } }, "dev_gateway.token", /^expected .+, got a table \(value hidden\)$/],
    [{ bus: { token: 12345678 } }, "bus.token", "expected a string, got an integer (value hidden)"],
    [{ bus: { password: true } }, "bus.password", "expected a string, got a boolean (value hidden)"],
    [{ agent: { env: [SECRET] } }, "agent.env", "expected a table of strings, got an array (value hidden)"],
    [{ agent: { env: { API_KEY: [SECRET] } } }, "agent.env.API_KEY", "expected a string, got an array (value hidden)"],
    [{ gateway: `ws://u:${SECRET}@gw` }, "gateway", "expected a table, got a string (value hidden)"],
  ])("hides the value in %j", (input, path, message) => {
    const problems = problemsOf(input);
    expect(problems).toEqual([{ path, message: typeof message === "string" ? message : expect.stringMatching(message) }]);
    expect(JSON.stringify(problems)).not.toContain(SECRET);
  });

  it("quotes a refused URL with its credentials masked", () => {
    expect(problemsOf({ gateway: { url: `http://u:${SECRET}@gw/ws?token=${SECRET}` } })).toEqual([
      { path: "gateway.url", message: `"http://***@gw/ws?token=***" is not allowed; expected a ws:// or wss:// URL` },
    ]);
    expect(problemsOf({ bus: { url: `u:${SECRET}@nats:4222` } })).toEqual([
      { path: "bus.url", message: `"***@nats:4222" is not allowed; expected a nats:// or tls:// URL` },
    ]);
    expect(problemsOf({ bus: { url: [`nats://u:${SECRET}@h`] } })[0]?.message).toBe(`expected a nats:// or tls:// URL, got array ["nats://***@h"]`);
  });

  it("keeps the secret out of the error's cause too", () => {
    const error = rejection(() => resolveConfig({ gateway: { url: `http://u:${SECRET}@gw`, token: [SECRET] }, agent: { env: { K: [SECRET] } } }, { env: {} }));
    expect(error.problems).toHaveLength(3);
    const cause = error.cause as Error;
    expect(`${error.message} ${cause.message} ${JSON.stringify(cause)}`).not.toContain(SECRET);
  });
});
