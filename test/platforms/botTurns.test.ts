import { describe, expect, it } from "vitest";
import { BotTurns, HARD_LIMIT_TEXT, type BotTurnCount } from "../../src/platforms/botTurns.js";

const OK: BotTurnCount = { kind: "ok" };

function counts(turns: BotTurns, key: string, n: number): BotTurnCount[] {
  return Array.from({ length: n }, () => turns.count(key));
}

// §6.3: every vector of upstream's bot_turns.rs tests.
describe("BotTurns (§2.6, §6.3)", () => {
  it("soft_limit_triggers: limit 3, bot ×3 → Ok, Ok, SoftLimit(3)", () => {
    expect(counts(new BotTurns({ maxBotTurns: 3 }), "t", 3)).toEqual([OK, OK, { kind: "soft-limit", turns: 3 }]);
  });

  it("human_resets_both_counters: bot, bot, human, bot, bot, bot → Ok, Ok, –, Ok, Ok, SoftLimit(3)", () => {
    const turns = new BotTurns({ maxBotTurns: 3 });
    expect(counts(turns, "t", 2)).toEqual([OK, OK]);
    turns.humanMessage("t");
    expect(counts(turns, "t", 3)).toEqual([OK, OK, { kind: "soft-limit", turns: 3 }]);
  });

  it("soft_limit_warn_once_semantics: limit 20, 19 bots then 3 → 19×Ok, SoftLimit(20), Throttled, Throttled", () => {
    const turns = new BotTurns({ maxBotTurns: 20 });
    expect(counts(turns, "t", 19)).toEqual(Array(19).fill(OK));
    expect(counts(turns, "t", 3)).toEqual([{ kind: "soft-limit", turns: 20 }, { kind: "throttled" }, { kind: "throttled" }]);
  });

  it("hard_limit_warn_once_semantics: limit 101, 99 bots then 2 → 99×Ok, HardLimit, Stopped", () => {
    const turns = new BotTurns({ maxBotTurns: 101 });
    expect(counts(turns, "t", 99)).toEqual(Array(99).fill(OK));
    expect(counts(turns, "t", 2)).toEqual([{ kind: "hard-limit" }, { kind: "stopped" }]);
  });

  it("hard_before_soft_when_equal: limit 100, 99 bots then 1 → HardLimit", () => {
    const turns = new BotTurns({ maxBotTurns: 100 });
    counts(turns, "t", 99);
    expect(turns.count("t")).toEqual({ kind: "hard-limit" });
  });

  it("threads_are_independent: limit 3 reached on t1, t2 starts at Ok", () => {
    const turns = new BotTurns({ maxBotTurns: 3 });
    counts(turns, "t1", 3);
    expect(counts(turns, "t2", 3)).toEqual([OK, OK, { kind: "soft-limit", turns: 3 }]);
  });

  it("classify_returns_warn_and_stop_on_soft_limit: limit 3, third message warns with upstream's text", () => {
    const turns = new BotTurns({ maxBotTurns: 3 });
    expect(turns.classify("t")).toEqual({ action: "continue" });
    expect(turns.classify("t")).toEqual({ action: "continue" });
    expect(turns.classify("t")).toEqual({
      action: "warn-and-stop",
      limit: "soft",
      turns: 3,
      text: "⚠️ Bot turn limit reached (3/3). A human must reply in this thread to continue bot-to-bot conversation.",
    });
    expect(turns.classify("t")).toEqual({ action: "silent-stop" });
  });

  it("classify_returns_warn_and_stop_on_hard_limit: the 100th warns 🛑, the 101st stops silently", () => {
    const turns = new BotTurns({ maxBotTurns: 100 });
    for (let i = 0; i < 99; i += 1) expect(turns.classify("t").action).toBe("continue");
    const hard = turns.classify("t");
    expect(hard).toEqual({ action: "warn-and-stop", limit: "hard", turns: 100, text: HARD_LIMIT_TEXT });
    expect(HARD_LIMIT_TEXT).toBe("🛑 Hard bot turn limit reached (100). A human must reply to continue.");
    expect(turns.classify("t")).toEqual({ action: "silent-stop" });
  });

  it("a soft limit below 100 still posts the hard warning once at the 100th bot message", () => {
    const turns = new BotTurns({ maxBotTurns: 5 });
    const verdicts = Array.from({ length: 101 }, () => turns.classify("t").action);
    expect(verdicts.slice(0, 4)).toEqual(Array(4).fill("continue"));
    expect(verdicts[4]).toBe("warn-and-stop");
    expect(verdicts.slice(5, 99)).toEqual(Array(94).fill("silent-stop"));
    expect(verdicts[99]).toBe("warn-and-stop");
    expect(verdicts[100]).toBe("silent-stop");
  });

  it("max_bot_turns = 0 silently stops every bot message", () => {
    const turns = new BotTurns({ maxBotTurns: 0 });
    expect(turns.classify("t")).toEqual({ action: "silent-stop" });
    expect(turns.classify("t")).toEqual({ action: "silent-stop" });
  });
});

describe("BotTurns is bounded", () => {
  it("keeps at most maxKeys keys, the least recently counted leaving first", () => {
    const turns = new BotTurns({ maxBotTurns: 3, maxKeys: 2 });
    turns.count("a");
    turns.count("a");
    turns.count("b");
    turns.count("a"); // a is now the most recent: b leaves when c comes
    turns.count("c");
    expect(turns.size).toBe(2);
    expect(turns.count("a")).toEqual({ kind: "throttled" }); // a kept its 4 turns
    expect(turns.count("b")).toEqual(OK); // b was evicted: counted from 0
  });

  it("a human's message frees its key", () => {
    const turns = new BotTurns({ maxBotTurns: 3 });
    turns.count("a");
    turns.humanMessage("a");
    turns.humanMessage("never-seen");
    expect(turns.size).toBe(0);
  });

  it("100 000 keys stay within the bound", () => {
    const turns = new BotTurns({ maxBotTurns: 3, maxKeys: 1000 });
    for (let i = 0; i < 100_000; i += 1) turns.count(`k${i}`);
    expect(turns.size).toBe(1000);
  });
});
