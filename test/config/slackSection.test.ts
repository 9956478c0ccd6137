import { describe, expect, it } from "vitest";
import * as z from "zod";
import { parse as parseToml } from "smol-toml";
import { problemsFromIssues } from "../../src/config/problems/problems.js";
import { slackSection, type SlackConfig } from "../../src/config/sections/slack.js";

const BOT = "xoxb-1000000001-2000000002-botSecretPart";
const APP = "xapp-1-A0TS000001-3000000003-appSecretPart";
const wrapped = z.strictObject({ slack: slackSection });

function slack(input: Record<string, unknown>): SlackConfig {
  return wrapped.parse({ slack: input }).slack;
}

/** The problem lines `[slack]` input is refused with, as `check-config` prints them. */
function problems(input: Record<string, unknown>): string[] {
  const parsed = wrapped.safeParse({ slack: input });
  if (parsed.success) throw new Error("expected [slack] to be refused");
  return problemsFromIssues(parsed.error.issues, wrapped).map((problem) => `${problem.path}: ${problem.message}`);
}

describe("[slack]: OpenAB's keys and defaults (§3.1)", () => {
  it("fills every default from the two tokens", () => {
    expect(slack({ bot_token: BOT, app_token: APP })).toEqual({
      bot_token: BOT,
      app_token: APP,
      allow_all_channels: true,
      allowed_channels: [],
      allow_all_users: true,
      allowed_users: [],
      allow_bot_messages: "off",
      trusted_bot_ids: [],
      allow_user_messages: "involved",
      max_bot_turns: 100,
      message_processing_mode: "per-message",
      max_buffered_messages: 10,
      max_batch_tokens: 24_000,
      assistant_mode: false,
      streaming: true,
      api_root: "https://slack.com/api/",
    });
  });

  it("runs OpenAB's documented [slack] section unchanged", () => {
    const toml = `
[slack]
bot_token = "${BOT}"
app_token = "${APP}"
allowed_channels = ["C0123456789"]
allowed_users = ["U0123456789"]
allow_bot_messages = "mentions"
trusted_bot_ids = ["U0BOTBOT01"]
allow_user_messages = "multibot_mentions"
max_bot_turns = 20
`;
    const config = slack((parseToml(toml) as { slack: Record<string, unknown> }).slack);
    expect(config).toMatchObject({
      allow_all_channels: false,
      allowed_channels: ["C0123456789"],
      allow_all_users: false,
      allowed_users: ["U0123456789"],
      allow_bot_messages: "mentions",
      trusted_bot_ids: ["U0BOTBOT01"],
      allow_user_messages: "multibot-mentions",
      max_bot_turns: 20,
    });
  });

  it("an explicit allow-all flag wins over its list (rule 5)", () => {
    expect(slack({ bot_token: BOT, app_token: APP, allow_all_channels: true, allowed_channels: ["C1"] }).allow_all_channels).toBe(true);
    expect(slack({ bot_token: BOT, app_token: APP, allow_all_users: false }).allow_all_users).toBe(false);
  });

  it("reads upstream's spellings: bot message aliases and booleans, any case", () => {
    expect(slack({ bot_token: BOT, app_token: APP, allow_bot_messages: "None" }).allow_bot_messages).toBe("off");
    expect(slack({ bot_token: BOT, app_token: APP, allow_bot_messages: true }).allow_bot_messages).toBe("all");
    expect(slack({ bot_token: BOT, app_token: APP, allow_user_messages: "MENTIONS" }).allow_user_messages).toBe("mentions");
  });

  it("needs both tokens, each of its kind, and never quotes them", () => {
    expect(problems({})).toEqual([
      'slack.bot_token: required; expected a Bot User OAuth token starting with "xoxb-"',
      'slack.app_token: required; expected an app-level token with connections:write shaped "xapp-<n>-<app id>-…"',
    ]);
    const swapped = problems({ bot_token: APP, app_token: BOT });
    expect(swapped).toEqual([
      'slack.bot_token: is not a Bot User OAuth token (value hidden); expected a Bot User OAuth token starting with "xoxb-"',
      'slack.app_token: is not an app-level token with connections:write (value hidden); expected an app-level token with connections:write shaped "xapp-<n>-<app id>-…"',
    ]);
    // Its app id names the app's receiver lease: a token without one is refused, never quoted.
    expect(problems({ bot_token: BOT, app_token: "xapp-not-an-app-token" })).toEqual([
      'slack.app_token: is not an app-level token with connections:write (value hidden); expected an app-level token with connections:write shaped "xapp-<n>-<app id>-…"',
    ]);
    expect(swapped.join("\n")).not.toContain("SecretPart");
    expect(problems({ bot_token: "", app_token: APP })).toEqual(['slack.bot_token: is empty (an unset ${VAR}?); expected a Bot User OAuth token starting with "xoxb-"']);
    expect(problems({ bot_token: `${BOT}\n`, app_token: APP })[0]).toContain("is not a Bot User OAuth token");
  });

  it("refuses assistant_mode = true with one line; false is v0.8.3's behaviour", () => {
    expect(slack({ bot_token: BOT, app_token: APP, assistant_mode: false }).assistant_mode).toBe(false);
    expect(problems({ bot_token: BOT, app_token: APP, assistant_mode: true })).toEqual([
      "slack.assistant_mode: true is not supported: Slack's assistant mode (status line, Cancel button, native streaming) is not built; set assistant_mode = false for reactions and edited replies",
    ]);
  });

  it("streaming = false is send-once", () => {
    expect(slack({ bot_token: BOT, app_token: APP, streaming: false }).streaming).toBe(false);
  });

  it("api_root: an http(s) URL, kept with one trailing slash", () => {
    expect(slack({ bot_token: BOT, app_token: APP, api_root: "http://127.0.0.1:9/api" }).api_root).toBe("http://127.0.0.1:9/api/");
    expect(slack({ bot_token: BOT, app_token: APP, api_root: "http://127.0.0.1:9/api//" }).api_root).toBe("http://127.0.0.1:9/api/");
    expect(problems({ bot_token: BOT, app_token: APP, api_root: "ftp://x" })[0]).toMatch(/^slack\.api_root: .*http:\/\/ or https:\/\//);
  });

  it("checks the shared keys as upstream: u32 turns, processing modes, positive buffers, no unknown keys", () => {
    expect(problems({ bot_token: BOT, app_token: APP, max_bot_turns: -1 })[0]).toMatch(/^slack\.max_bot_turns: /);
    expect(problems({ bot_token: BOT, app_token: APP, message_processing_mode: "batched" })[0]).toMatch(/^slack\.message_processing_mode: /);
    expect(problems({ bot_token: BOT, app_token: APP, max_buffered_messages: 0 })[0]).toMatch(/^slack\.max_buffered_messages: /);
    expect(problems({ bot_token: BOT, app_token: APP, allow_dm: true })[0]).toMatch(/allow_dm/);
  });
});
