import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { DEFAULT_PROCESSING, processingOf } from "../../src/config/processing.js";
import { problemsOf } from "./problemsOf.js";

// OpenAB's message-processing keys live in [gateway], [discord] and [slack]; turnstream's workers
// run one lane rule, so the sections present must agree, and the agreed rule is what runs.

const discord = { bot_token: "MTMxMTExMTExMTExMTExMTExMQ.GkT3xq.secret" };
const slack = { bot_token: "xoxb-1-2-secret", app_token: "xapp-1-A1-2-secret" };
const gateway = { url: "ws://127.0.0.1:1/ws" };

describe("processingOf", () => {
  it("upstream's defaults when no section carries the keys", () => {
    expect(processingOf(resolveConfig({}, { env: {} }))).toEqual(DEFAULT_PROCESSING);
  });

  it("the one present section's values", () => {
    const config = resolveConfig({ discord: { ...discord, message_processing_mode: "per-thread", max_buffered_messages: 4 } }, { env: {} });
    expect(processingOf(config)).toEqual({ message_processing_mode: "per-thread", max_buffered_messages: 4, max_batch_tokens: 24_000 });
  });

  it("several sections that agree run together", () => {
    const same = { message_processing_mode: "per-lane", max_batch_tokens: 9_000 } as const;
    const config = resolveConfig({ gateway: { ...gateway, ...same }, slack: { ...slack, ...same } }, { env: {} });
    expect(processingOf(config)).toEqual({ message_processing_mode: "per-lane", max_buffered_messages: 10, max_batch_tokens: 9_000 });
  });
});

describe("processingProblems", () => {
  it("refuses sections that disagree, one line per key, naming both values (a default counts)", () => {
    const lines = problemsOf({ gateway, discord: { ...discord, message_processing_mode: "per-thread", max_buffered_messages: 4 }, slack }).map((p) => `${p.path}: ${p.message}`);
    expect(lines).toEqual([
      'discord.message_processing_mode: is "per-thread" and gateway.message_processing_mode is "per-message" (set or defaulted): turnstream runs one message-processing rule for every platform, so set both the same',
      'discord.max_buffered_messages: is 4 and gateway.max_buffered_messages is 10 (set or defaulted): turnstream runs one message-processing rule for every platform, so set both the same',
    ]);
  });

  it("checks batching against [queue] on every section that carries it", () => {
    const lines = problemsOf({ slack: { ...slack, message_processing_mode: "per-thread" }, queue: { mode: "followup" } }).map((p) => p.path);
    expect(lines).toEqual(["slack.message_processing_mode"]);
    expect(problemsOf({ discord: { ...discord, max_batch_tokens: 10 } }).map((p) => p.path)).toEqual(["discord.max_batch_tokens"]);
  });
});
