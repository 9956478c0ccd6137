import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { resolveRateLimits } from "../../src/config/rateLimits.js";
import { problemsOf, problemsOfToml } from "./problemsOf.js";

const resolved = (input: Record<string, unknown>) => resolveRateLimits(resolveConfig({ rate_limits: input }, { env: {} }).rate_limits);

describe("[rate_limits]", () => {
  it("defaults for telegram, discord, slack and line; none for another platform", () => {
    const limits = resolved({});
    expect([...limits.keys()].sort()).toEqual(["discord", "line", "slack", "telegram"]);
    expect(limits.get("telegram")).toEqual({
      perConversation: { messages: 1, perSecs: 1, burst: 5 },
      perGroup: { messages: 20, perSecs: 60, burst: 20 },
      perBot: { messages: 30, perSecs: 1, burst: 30 },
      conversationCounts: new Set(["message"]),
      botCounts: new Set(["message"]),
    });
    expect(limits.get("discord")?.botCounts).toEqual(new Set(["message", "edit", "delete", "reaction", "typing"]));
    expect(limits.get("line")).toMatchObject({ perBot: { messages: 2000, perSecs: 1, burst: 2000 } });
    expect(limits.get("irc")).toBeUndefined();
  });

  it("a bucket set replaces that default only; burst defaults to messages", () => {
    const telegram = resolved({ telegram: { per_conversation: { messages: 1, per_secs: 1, burst: 1 }, per_bot: { messages: 10, per_secs: 1 } } }).get("telegram");
    expect(telegram).toMatchObject({
      perConversation: { messages: 1, perSecs: 1, burst: 1 },
      perGroup: { messages: 20, perSecs: 60, burst: 20 },
      perBot: { messages: 10, perSecs: 1, burst: 10 },
    });
  });

  it("enabled = false turns a platform's shaping off; a platform without defaults is limited by what is set", () => {
    const limits = resolved({ telegram: { enabled: false }, whatsapp: { per_conversation: { messages: 2, per_secs: 1 } } });
    expect(limits.has("telegram")).toBe(false);
    expect(limits.get("whatsapp")).toMatchObject({ perConversation: { messages: 2, perSecs: 1, burst: 2 }, conversationCounts: new Set(["message"]) });
    expect(resolved({ whatsapp: { enabled: true } }).has("whatsapp")).toBe(false);
  });

  it("reads the TOML inline tables of the issue", () => {
    const config = resolveConfig({}, { env: {} });
    expect(config.rate_limits).toEqual({});
    const problems = problemsOfToml(`[rate_limits.telegram]\nper_conversation = { messages = 0, per_secs = 1 }\n`);
    expect(problems).toEqual([{ path: "rate_limits.telegram.per_conversation.messages", message: expect.stringContaining("expected an integer ≥ 1") as unknown }]);
  });

  it("refuses what it cannot do, one clear problem per key", () => {
    expect(problemsOf({ rate_limits: { telegram: { per_chat: { messages: 1, per_secs: 1 } } } })).toEqual([
      { path: "rate_limits.telegram.per_chat", message: expect.stringMatching(/^unknown key; allowed keys: enabled, per_conversation, per_group, per_bot$/) as unknown },
    ]);
    expect(problemsOf({ rate_limits: { telegram: { per_bot: { messages: 1, per_secs: 0 } } } }).map((p) => p.path)).toEqual(["rate_limits.telegram.per_bot.per_secs"]);
    expect(problemsOf({ rate_limits: { telegram: { per_bot: { messages: 1, per_secs: 1, burst: 1.5 } } } }).map((p) => p.path)).toEqual(["rate_limits.telegram.per_bot.burst"]);
    expect(problemsOf({ rate_limits: { telegram: { per_bot: { messages: 1 } } } }).map((p) => p.path)).toEqual(["rate_limits.telegram.per_bot.per_secs"]);
  });
});
