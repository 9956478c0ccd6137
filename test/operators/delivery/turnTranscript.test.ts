import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import {
  emptyTranscript,
  reduceTranscript,
  SESSION_RESET_NOTICE,
  withAgentError,
  type TurnTranscript,
} from "../../../operators/delivery/turnTranscript.js";

const fold = (events: readonly AgentEvent[], from: TurnTranscript = emptyTranscript()) => events.reduce(reduceTranscript, from);

describe("reduceTranscript", () => {
  it("concatenates text chunks", () => {
    expect(fold([{ type: "text", text: "Hel" }, { type: "text", text: "lo" }]).buffer).toBe("Hello");
  });

  it("puts the reset notice at the head when session_reset comes first", () => {
    const transcript = fold([{ type: "session_reset" }, { type: "text", text: "hi" }]);
    expect(transcript).toMatchObject({ reset: true, buffer: `${SESSION_RESET_NOTICE}hi`, answerStart: 0 });
    expect(SESSION_RESET_NOTICE).toBe("⚠️ _Session expired, starting fresh..._\n\n");
  });

  it("ignores a session_reset that is not first, or repeated, so offsets never shift", () => {
    expect(fold([{ type: "text", text: "hi" }, { type: "session_reset" }])).toStrictEqual({ ...emptyTranscript(), buffer: "hi" });
    expect(fold([{ type: "session_reset" }, { type: "session_reset" }]).buffer).toBe(SESSION_RESET_NOTICE);
  });

  it("sets answerStart to the buffer length at the last finished tool, failed ones included", () => {
    const transcript = fold([
      { type: "text", text: "let me look" },
      { type: "tool_start", id: "t1", title: "grep" },
      { type: "tool_done", id: "t1", status: "completed" },
      { type: "text", text: "and more" },
      { type: "tool_start", id: "t2", title: "curl" },
      { type: "tool_done", id: "t2", status: "failed" },
      { type: "text", text: "the answer" },
    ]);
    expect(transcript.answerStart).toBe("let me lookand more".length);
    expect(transcript.buffer.slice(transcript.answerStart)).toBe("the answer");
  });

  it("does not move answerStart for a tool that starts or updates", () => {
    const transcript = fold([
      { type: "text", text: "abc" },
      { type: "tool_start", id: "t1", title: "grep" },
      { type: "tool_update", id: "t1", status: "in_progress" },
    ]);
    expect(transcript.answerStart).toBe(0);
  });

  it("upserts tools by id in call order; a later non-empty title replaces", () => {
    const transcript = fold([
      { type: "tool_start", id: "a", title: "Read" },
      { type: "tool_start", id: "b", title: "Bash" },
      { type: "tool_update", id: "a", title: "Read config.json", status: "in_progress" },
      { type: "tool_start", id: "a", title: "Read config.json" },
      { type: "tool_done", id: "b", status: "failed" },
      { type: "tool_done", id: "a", title: "", status: "completed" },
    ]);
    expect(transcript.tools).toStrictEqual([
      { id: "a", title: "Read config.json", state: "completed" },
      { id: "b", title: "Bash", state: "failed" },
    ]);
  });

  it("marks a finished tool running again when a titled update arrives, as OpenAB does", () => {
    const transcript = fold([
      { type: "tool_start", id: "a", title: "x" },
      { type: "tool_done", id: "a", status: "completed" },
      { type: "tool_update", id: "a", title: "x again", status: "in_progress" },
    ]);
    expect(transcript.tools).toStrictEqual([{ id: "a", title: "x again", state: "running" }]);
  });

  it("records no entry for a call without a title, but still moves answerStart when it finishes", () => {
    const transcript = fold([
      { type: "text", text: "abc" },
      { type: "tool_start", id: "a", title: "" },
      { type: "tool_update", id: "a", status: "in_progress" },
      { type: "tool_done", id: "a", status: "completed" },
    ]);
    expect(transcript.tools).toStrictEqual([]);
    expect(transcript.answerStart).toBe(3);
  });

  it("adds a tool first seen finishing when the update carries a title", () => {
    expect(fold([{ type: "tool_done", id: "z", title: "late", status: "completed" }]).tools).toStrictEqual([
      { id: "z", title: "late", state: "completed" },
    ]);
  });

  it("takes stopReason and usage from end", () => {
    const usage = { inputTokens: 10, outputTokens: 0, totalTokens: 10 };
    expect(fold([{ type: "end", stopReason: "end_turn", usage }])).toMatchObject({ stopReason: "end_turn", usage });
    expect(fold([{ type: "end", stopReason: "cancelled" }])).not.toHaveProperty("usage");
  });

  it("ignores thoughts, plans, config updates, bubbles and unknown updates", () => {
    const transcript = fold([
      { type: "thought", text: "hmm" },
      { type: "plan", entries: [] },
      { type: "config_update", configOptions: [] },
      { type: "openab_message", id: "m1", text: "bubble" },
      { type: "unknown", sessionUpdate: "usage_update", raw: {} },
    ]);
    expect(transcript).toStrictEqual(emptyTranscript());
  });

  it("never mutates the transcript it is given", () => {
    const before = fold([{ type: "tool_start", id: "a", title: "x" }]);
    const snapshot = structuredClone(before);
    reduceTranscript(before, { type: "tool_done", id: "a", status: "completed" });
    reduceTranscript(before, { type: "text", text: "more" });
    expect(before).toStrictEqual(snapshot);
  });
});

describe("withAgentError", () => {
  it("takes an Error's message, or the thrown value as text", () => {
    expect(withAgentError(emptyTranscript(), new Error("Agent process died")).agentError).toBe("Agent process died");
    expect(withAgentError(emptyTranscript(), "boom").agentError).toBe("boom");
  });
});
