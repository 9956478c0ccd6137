import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/index.js";
import { withKeyReads } from "../../../src/config/problems/keyReads.js";
import { KeyTree } from "../../../src/config/problems/keyTree.js";
import { problemsOf, problemsOfToml } from "../problemsOf.js";
import { expectLinear } from "../../helpers/linearTime.js";

// Issue 36, defect 9: every problem of a file in one pass — schema problems, unset variables and
// cross-key checks together — and none that only follows from another.

const lines = (problems: readonly { path: string; message: string }[]) => problems.map((p) => `${p.path}: ${p.message}`);

describe("every config problem at once", () => {
  it("a bad choice, blocks in sequential mode and min_ms > max_ms: three lines, not the first alone", () => {
    const problems = problemsOfToml(`
[delivery]
mode = "sequential"
reply_to_mode = "sometimes"
human_delay = { min_ms = 3000, max_ms = 1000 }
[delivery.blocks]
enabled = true
`);
    expect(lines(problems)).toEqual([
      'delivery.reply_to_mode: "sometimes" is not allowed; expected one of off, first, all',
      'delivery.blocks.enabled: true sends a text reply as blocks, and [delivery] mode = "sequential" sends bubbles: set blocks.enabled = false, or delivery.mode = "text"',
      "delivery.human_delay: waits from min_ms (3000) to max_ms (1000), and min_ms is more: set min_ms ≤ max_ms",
    ]);
  });

  it("reports an unset variable, a wrong type, an unknown key, a bound and a cross-key problem together", () => {
    const problems = problemsOf(
      {
        gatway: {},
        gateway: { url: "ws://gw/ws", token: "${GW_TOKEN}", streaming: true },
        delivery: { mode: "structured", max_bubbles: "4" },
        inbound: { history_limit: 5000 },
      },
      {},
    );
    expect(lines(problems)).toEqual([
      "gateway.token: ${GW_TOKEN} is not set in the environment",
      'delivery.max_bubbles: expected an integer ≥ 1, got string "4"',
      "inbound.history_limit: 5000 is not allowed; expected an integer from 0 to 1000",
      expect.stringMatching(/^gatway: unknown key \(did you mean "gateway"\?\)/),
      'gateway.streaming: true edits one message in place as a text reply is written, and [delivery] mode = "structured" sends bubbles: set streaming = false, or delivery.mode = "text"',
    ]);
  });

  it("both blocks problems of one section: the mode and min_chars > max_chars", () => {
    expect(problemsOf({ delivery: { mode: "sequential", blocks: { enabled: true, min_chars: 2000, max_chars: 100 } } }).map((p) => p.path)).toEqual([
      "delivery.blocks.enabled",
      "delivery.blocks.min_chars",
    ]);
  });

  it("a table's own check, which zod skips while a key inside it fails, runs once that key is put aside", () => {
    expect(lines(problemsOf({ reactions: { mapping: { "👀": 1, "✅": "done" } } }))).toEqual([
      'reactions.mapping."👀": expected a string, got integer 1',
      "reactions.mapping: is not supported yet: reactions show as emoji where the platform takes them, and as nothing elsewhere (remove [reactions.mapping])",
    ]);
  });

  it("no consequential noise: a check that reads a bad key does not run, one that does not still does", () => {
    // bot_username is bad: the history check, which reads it, would only repeat that.
    expect(lines(problemsOf({ gateway: { url: "ws://gw/ws", bot_username: 5 }, inbound: { history_limit: 10 } }))).toEqual([
      "gateway.bot_username: expected a string, got integer 5",
    ]);
    // bus.token is bad: "given twice" reads it and stays quiet; user without password is true all the same.
    expect(lines(problemsOf({ bus: { url: "nats://h:1", token: 5, user: "u" } }))).toEqual([
      "bus.token: expected a string, got an integer (value hidden)",
      "bus: bus.user and bus.password go together: set both or neither",
    ]);
  });

  it("a misspelt key is one line: not 'required' for the key it stands for, nor a cross-key problem about its absence", () => {
    const problems = problemsOf({ gateway: { ulr: "ws://gw/ws", bot_usrname: "bot" }, inbound: { history_limit: 10 } });
    expect(problems.map((p) => p.path)).toEqual(["gateway.ulr", "gateway.bot_usrname"]);
    expect(problems[0]?.message).toMatch(/^unknown key \(did you mean "url"\?\)/);
  });

  it("a required key left out is one line, and the section's cross-key checks wait for it", () => {
    expect(lines(problemsOf({ gateway: { streaming: true }, delivery: { mode: "structured" } }))).toEqual(["gateway.url: required; expected a ws:// or wss:// URL"]);
  });

  it("an unset variable in a required key is one line, not 'required' on top", () => {
    expect(lines(problemsOf({ gateway: { url: "${GW_URL}" } }))).toEqual(["gateway.url: ${GW_URL} is not set in the environment"]);
  });

  it("an input that is no table at all is one problem", () => {
    expect(problemsOf("nope")).toHaveLength(1);
  });

  it("each problem once, however many there are", () => {
    const delivery = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key_${i}`, i]));
    const problems = problemsOf({ delivery: { ...delivery, mode: "bogus", max_bubbles: 0 } });
    expect(problems).toHaveLength(202);
    expect(new Set(lines(problems)).size).toBe(202);
  });

  it("a good config still resolves, and resolving it again returns it", () => {
    const config = resolveConfig({ delivery: { mode: "sequential" }, inbound: { history_limit: 1000 }, gateway: { url: "ws://gw/ws", bot_username: "bot" } }, { env: {} });
    expect(config.inbound.history_limit).toBe(1000);
    expect(resolveConfig(config)).toBe(config);
  });
});

describe("withKeyReads", () => {
  it("records the values a function took, not the tables it stepped through", () => {
    const config = { gateway: { url: "ws://gw", streaming: false }, delivery: { mode: "text", blocks: { enabled: true } }, list: [1, 2] };
    const { result, reads } = withKeyReads(config, (c) => [c.gateway.streaming, c.delivery.blocks.enabled, c.list.length, (c as Record<string, unknown>).absent]);
    expect(result).toEqual([false, true, 2, undefined]);
    expect(reads).toEqual([["gateway", "streaming"], ["delivery", "blocks", "enabled"], ["list"], ["absent"]]);
  });

  it("listing a table's keys reads the whole table", () => {
    const { reads } = withKeyReads({ agent: { env: { A: "1" } } }, (c) => Object.keys(c.agent.env));
    expect(reads).toEqual([["agent", "env"]]);
  });
});

describe("every config problem at once, at scale", () => {
  it("is linear in the file: 300 unknown keys and 300 bad values in one table, each reported once", () => {
    const config = (n: number) => ({
      delivery: Object.fromEntries(Array.from({ length: n }, (_, i) => [`unknown_${i}`, i])),
      inbound: { debounce_by_platform: Object.fromEntries(Array.from({ length: n }, (_, i) => [`platform_${i}`, -1])) },
    });
    expect(problemsOf(config(300))).toHaveLength(600);
    // Ten files of 30 against one of 300. A key costs ~75 µs to check, so 300 is plenty to show a
    // check per problem over the whole table (quadratic: seconds), and keeps the test quick.
    expectLinear(config, problemsOf, 300);
  });
});

describe("KeyTree", () => {
  it("covers a member and what lies under it; touches those and what lies above", () => {
    const tree = new KeyTree();
    expect(tree.add(["gateway", "bot_username"])).toBe(true);
    expect(tree.add(["gateway", "bot_username"])).toBe(false);
    expect(tree.size).toBe(1);
    expect(tree.covers(["gateway", "bot_username"])).toBe(true);
    expect(tree.covers(["gateway", "bot_username", "x"])).toBe(true);
    expect(tree.covers(["gateway"])).toBe(false);
    expect(tree.touches(["gateway"])).toBe(true);
    expect(tree.touches(["gateway", "streaming"])).toBe(false);
    expect(tree.touches(["delivery"])).toBe(false);
  });
});
