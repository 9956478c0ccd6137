import { describe, expect, it } from "vitest";
import { parseConfigText, resolveConfig } from "../../src/config/index.js";
import { problemsOf, problemsOfToml } from "./problemsOf.js";

const GATEWAY = { url: "ws://127.0.0.1:1/ws" };

describe("[delivery] blocks, human_delay, reply_to_mode, response_prefix and [inbound] history_limit", () => {
  it("leaves an OpenAB config as it was: no blocks, no delay, no prefix, OpenAB's quoting, no history", () => {
    const { delivery, inbound } = resolveConfig({ gateway: GATEWAY }, { env: {} });
    expect(delivery.blocks.enabled).toBe(false);
    expect(delivery.human_delay).toBe("off");
    expect(delivery.reply_to_mode).toBeUndefined();
    expect(delivery.response_prefix).toBe("");
    expect(inbound.history_limit).toBe(0);
  });

  it("reads the TOML forms: a block table with its coalescer, a custom delay as an inline table", () => {
    const config = parseConfigText(
      [
        "[gateway]",
        'url = "ws://127.0.0.1:1/ws"',
        'bot_username = "turnbot"',
        "[delivery]",
        "human_delay = { min_ms = 100, max_ms = 300 }",
        'reply_to_mode = "ALL"',
        'response_prefix = "[{identity.name}]"',
        "[delivery.blocks]",
        "enabled = true",
        'break = "message_end"',
        "min_chars = 20",
        "max_chars = 60",
        'break_preference = "sentence"',
        "coalesce = { idle_ms = 0, min_chars = 10 }",
        "[inbound]",
        "history_limit = 20",
      ].join("\n"),
      { env: {} },
    );
    expect(config.delivery.human_delay).toEqual({ min_ms: 100, max_ms: 300 });
    expect(config.delivery.reply_to_mode).toBe("all");
    expect(config.delivery.blocks).toEqual({ enabled: true, break: "message_end", min_chars: 20, max_chars: 60, break_preference: "sentence", coalesce: { idle_ms: 0, min_chars: 10 } });
    expect(config.inbound.history_limit).toBe(20);
  });

  it.each([
    [{ delivery: { mode: "structured", blocks: { enabled: true } } }, "delivery.blocks.enabled", 'true sends a text reply as blocks, and [delivery] mode = "structured" sends bubbles: set blocks.enabled = false, or delivery.mode = "text"'],
    [{ gateway: { ...GATEWAY, streaming: true }, delivery: { blocks: { enabled: true } } }, "delivery.blocks.enabled", "true sends a text reply as several messages, and [gateway] streaming = true edits one message in place: set one of them to false"],
    [{ delivery: { blocks: { enabled: true, min_chars: 900, max_chars: 600 } } }, "delivery.blocks.min_chars", "900 is more than delivery.blocks.max_chars (600): no block could be cut; lower min_chars or raise max_chars"],
    [{ inbound: { history_limit: 5 } }, "inbound.history_limit", "5 keeps group messages that did not mention the bot, and without [gateway] bot_username every message starts a turn: set gateway.bot_username, or history_limit = 0"],
    [{ delivery: { human_delay: { max_ms: 500 } } }, "delivery.human_delay", "waits from min_ms (800) to max_ms (500), and min_ms is more: set min_ms ≤ max_ms"],
    [{ delivery: { response_prefix: "[{model}]" } }, "delivery.response_prefix", "uses a model variable ({model}, {modelFull}, {provider}, {thinkingLevel}, {think}), which is not supported yet: turnstream does not learn the agent's model; use {identity.name} or literal text"],
  ])("refuses %j with one line", (input, path, message) => {
    expect(problemsOf(input)).toEqual([{ path, message }]);
  });

  it("names the key and what it takes for a wrong value", () => {
    expect(problemsOf({ delivery: { reply_to_mode: "batched" } })).toEqual([
      { path: "delivery.reply_to_mode", message: '"batched" is not allowed; expected one of off, first, all' },
    ]);
    expect(problemsOf({ delivery: { blocks: { coalesce: { idle_ms: 6000 } } } })[0]?.path).toBe("delivery.blocks.coalesce.idle_ms");
    expect(problemsOfToml('[delivery]\nhuman_delay = "fast"')[0]?.path).toBe("delivery.human_delay");
    expect(problemsOf({ delivery: { blocks: { shape: "x" } } })[0]?.path).toBe("delivery.blocks.shape");
  });
});
