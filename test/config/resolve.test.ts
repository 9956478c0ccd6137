import { describe, expect, it } from "vitest";
import { type Config, type ConfigInput, defaultConfig, parseConfigText, resolveConfig } from "../../src/config/index.js";

const env = { HOME: "/home/bot" };

const openabToml = `
[gateway]
url = "ws://gateway:8080/ws"
platform = "Telegram"
token = "gw-secret"
bot_username = "turnbot"
allowed_channels = ["-1001234567890"]
allowed_users = ["42", "43"]
streaming = false
message_processing_mode = "per-message"
gateway_ack_timeout_secs = 15

[agent]
command = "kiro-cli"
args = ["acp", "--trust-all-tools"]
working_dir = "/srv/agent"
inherit_env = ["AWS_REGION"]

[agent.env]
ANTHROPIC_API_KEY = "\${ANTHROPIC_API_KEY}"

[pool]
max_sessions = 4
session_ttl_hours = 0.5
prompt_hard_timeout_secs = 600

[pool.default_config_options]
model = "claude-sonnet"

[delivery]
mode = "bubbles"
max_bubbles = 3
on_parse_error = "error"

[triage]
enabled = true
quiet_hours = "22:00-07:00"
timezone = "Europe/Berlin"
daily_cap = 4

[reactions]
remove_after_reply = true
tool_display = "compact"

[reactions.emojis]
done = "✅"

[reactions.timing]
stall_soft_ms = 15000
`;

describe("resolveConfig: good configs", () => {
  it("fills every default from an empty input", () => {
    const config = resolveConfig({}, { env });
    const expected: Config = {
      gateway: undefined,
      agent: { command: "openab-agent", args: [], working_dir: "/home/bot", env: {}, inherit_env: [], permission_mode: "allow_always", permission_answerers: "requester", permission_timeout_secs: 300, permission_fallback: "reject", ask_timeout_secs: 600 },
      pool: {
        max_sessions: 10,
        sessions_per_agent: 1,
        session_ttl_hours: 4,
        preload_persisted_sessions: false,
        prompt_hard_timeout_secs: 1800,
        liveness_check_secs: 30,
        hung_grace_secs: 120,
        default_config_options: {},
        shutdown_grace_secs: 30,
      },
      delivery: {
        mode: "text",
        schema: "openab.turn.v1",
        max_bubbles: 4,
        max_bubble_chars: 1200,
        bubble_delay_ms: 400,
        on_parse_error: "fallback_text",
        parse_error_text: "⚠️ something went wrong composing that reply",
        reply_tool: "auto",
        reply_tool_instructions: true,
        human_delay: "off",
        response_prefix: "",
        blocks: { enabled: false, break: "text_end", min_chars: 800, max_chars: 1200, break_preference: "paragraph", coalesce: { idle_ms: 1000 } },
      },
      triage: { enabled: false, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 },
      reactions: {
        enabled: true,
        remove_after_reply: false,
        tool_display: "full",
        narration_display: false,
        emojis: { queued: "👀", thinking: "🤔", tool: "🔥", coding: "👨‍💻", web: "⚡", done: "🆗", error: "😱" },
        timing: { debounce_ms: 700, stall_soft_ms: 10_000, stall_hard_ms: 30_000, done_hold_ms: 1500, error_hold_ms: 2500 },
        mapping: {},
      },
      bus: { partitions: 16, prefix: "turnstream", lease_ttl_secs: 10, ack_wait_secs: 30, duplicate_window_secs: 120, state_ttl_secs: 86_400 },
      inbound: { dedupe_ttl_secs: 1200, dedupe_max: 5000, debounce_ms: 0, debounce_by_platform: {}, history_limit: 0 },
      queue: { mode: "collect", debounce_ms: 500, cap: 20, drop: "summarize" },
      dev_gateway: { listen: "127.0.0.1:8765" },
      metrics: { enabled: false, listen: "127.0.0.1:9464" },
      rate_limits: {},
      log: { level: "info", pretty: false },
      silent: { enabled: true, token: "NO_REPLY", report_token: "NOTHING_TO_REPORT" },
      activity: { enabled: false },
      stt: { enabled: false, api_key: "", model: "whisper-large-v3-turbo", base_url: "https://api.groq.com/openai/v1", echo_transcript: false, timeout_secs: 30 },
      webhooks: { listen: "127.0.0.1:8790", max_body_bytes: 1_048_576, endpoints: [] },
      cron: { usercron_enabled: false, catch_up: "none", jobs: [], blank_thread_ids: [] },
    };
    expect(config).toEqual(expected);
    expect(config.gateway).toBeUndefined();
    expect(defaultConfig(env)).toEqual(expected);
    expect(parseConfigText("", { env })).toEqual(expected);
  });

  it("falls back to \".\" for working_dir without HOME", () => {
    expect(defaultConfig({}).agent.working_dir).toBe(".");
  });

  it("does not share default arrays or tables between configs", () => {
    const first = defaultConfig(env);
    first.agent.inherit_env.push("X");
    first.pool.default_config_options.model = "m";
    const second = defaultConfig(env);
    expect(second.agent.inherit_env).toEqual([]);
    expect(second.pool.default_config_options).toEqual({});
  });

  it("parses a realistic OpenAB config from TOML", () => {
    const config = parseConfigText(openabToml, { env: { ...env, ANTHROPIC_API_KEY: "sk-123" } });
    expect(config.gateway).toEqual({
      url: "ws://gateway:8080/ws",
      platform: "telegram",
      token: "gw-secret",
      bot_username: "turnbot",
      allowed_channels: ["-1001234567890"],
      allowed_users: ["42", "43"],
      allow_bot_messages: false,
      trusted_bot_ids: [],
      streaming: false,
      streaming_placeholder: true,
      telegram_rich_messages: true,
      message_processing_mode: "per-message",
      max_buffered_messages: 10,
      max_batch_tokens: 24_000,
      gateway_ack_timeout_secs: 15,
      legacy_ack_timeout_secs: 5,
      max_frame_bytes: 4_194_304,
      keepalive_secs: 30,
    });
    expect(config.gateway?.allow_all_users).toBeUndefined();
    expect(config.agent).toEqual({
      command: "kiro-cli",
      args: ["acp", "--trust-all-tools"],
      working_dir: "/srv/agent",
      env: { ANTHROPIC_API_KEY: "sk-123" },
      inherit_env: ["AWS_REGION"],
      permission_mode: "allow_always",
      permission_answerers: "requester",
      permission_timeout_secs: 300,
      permission_fallback: "reject",
      ask_timeout_secs: 600,
    });
    expect(config.pool).toMatchObject({ max_sessions: 4, session_ttl_hours: 0.5, default_config_options: { model: "claude-sonnet" } });
    expect(config.delivery).toMatchObject({ mode: "structured", max_bubbles: 3, on_parse_error: "error_message" });
    expect(config.triage).toMatchObject({ enabled: true, quiet_hours: "22:00-07:00", timezone: "Europe/Berlin", daily_cap: 4 });
    expect(config.reactions.tool_display).toBe("compact");
    expect(config.reactions.emojis).toMatchObject({ done: "✅", queued: "👀" });
    expect(config.reactions.timing).toMatchObject({ stall_soft_ms: 15_000, stall_hard_ms: 30_000 });
  });

  it("takes a typed, TOML-shaped object from programmatic callers", () => {
    const input: ConfigInput = { gateway: { url: "ws://gw/ws" }, delivery: { mode: "Bubbles" }, reactions: { timing: { debounce_ms: 0 } } };
    const config = resolveConfig(input, { env });
    expect(config.delivery.mode).toBe("structured");
    expect(config.reactions.timing).toMatchObject({ debounce_ms: 0, stall_soft_ms: 10_000 });
  });

  it("is idempotent: a resolved config resolves to itself", () => {
    const withKey = { ...env, ANTHROPIC_API_KEY: "sk-123" };
    const config = parseConfigText(openabToml, { env: withKey });
    expect(resolveConfig(config, { env: withKey })).toEqual(config);
  });

  it("accepts wss gateways, nats and tls bus urls, and IPv6 listen addresses", () => {
    const config = resolveConfig(
      {
        gateway: { url: "wss://gw.example.com/ws" },
        bus: { url: "tls://nats.example.com:4222", prefix: "prod.turnstream-1", partitions: 1024 },
        dev_gateway: { listen: "[::1]:8765" },
        metrics: { listen: "0.0.0.0:0" },
      },
      { env },
    );
    expect(config.bus).toMatchObject({ url: "tls://nats.example.com:4222", prefix: "prod.turnstream-1" });
    expect(resolveConfig({ bus: { url: "nats://localhost:4222" } }, { env }).bus.url).toBe("nats://localhost:4222");
    expect(config.dev_gateway.listen).toBe("[::1]:8765");
  });
});

describe("resolveConfig: aliases", () => {
  const resolve = (input: object) => resolveConfig(input, { env });

  it.each([
    ["TEXT", "text"],
    ["plain", "text"],
    ["off", "text"],
    ["bubbles", "structured"],
    ["Structured", "structured"],
    ["sequential", "sequential"],
  ])("delivery.mode %j → %j", (mode, expected) => {
    expect(resolve({ delivery: { mode } }).delivery.mode).toBe(expected);
  });

  it.each([
    ["drop", "silent"],
    ["Fallback", "fallback_text"],
    ["text", "fallback_text"],
    ["error", "error_message"],
  ])("delivery.on_parse_error %j → %j", (value, expected) => {
    expect(resolve({ delivery: { on_parse_error: value } }).delivery.on_parse_error).toBe(expected);
  });

  it.each([
    ["hidden", "none"],
    ["OFF", "none"],
    ["compact", "compact"],
  ])("reactions.tool_display %j → %j", (value, expected) => {
    expect(resolve({ reactions: { tool_display: value } }).reactions.tool_display).toBe(expected);
  });

  it.each([
    ["coalesce", "collect"],
    ["follow-ups", "followup"],
    ["followups", "followup"],
    ["interrupts", "interrupt"],
    ["abort", "interrupt"],
  ])("queue.mode %j → %j", (mode, expected) => {
    expect(resolve({ queue: { mode } }).queue.mode).toBe(expected);
  });

  it.each([
    ["oldest", "old"],
    ["newest", "new"],
    ["summary", "summarize"],
  ])("queue.drop %j → %j", (drop, expected) => {
    expect(resolve({ queue: { drop } }).queue.drop).toBe(expected);
  });

  it("normalizes log level case and platform case", () => {
    expect(resolve({ log: { level: "DEBUG" } }).log.level).toBe("debug");
    expect(resolve({ gateway: { url: "ws://x", platform: "Discord" } }).gateway?.platform).toBe("discord");
  });
});
