import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import {
  classifyEmptyTurn,
  composeTextReply,
  finalizeBody,
  NO_RESPONSE_TEXT,
  planTextReply,
  selectDeliveryText,
  SILENT_FAILURE_TEXT,
  splitDelivery,
  type TextReplyOptions,
} from "../../../../operators/delivery/text/textReply.js";
import { emptyTranscript, reduceTranscript, SESSION_RESET_NOTICE, type TurnTranscript } from "../../../../operators/delivery/turnTranscript.js";

const NOTICE = "⚠️ _Session expired, starting fresh..._\n\n";
const sendOnce: TextReplyOptions = { toolDisplay: "full", keepFullText: false, limit: 4096 };
const turn = (...events: AgentEvent[]): TurnTranscript => events.reduce(reduceTranscript, emptyTranscript());
const text = (value: string): AgentEvent => ({ type: "text", text: value });
const toolRun = (id: string, title: string, status: "completed" | "failed" = "completed"): AgentEvent[] => [
  { type: "tool_start", id, title },
  { type: "tool_done", id, status },
];

describe("selectDeliveryText", () => {
  it("select_delivery_text_send_once_keeps_only_final_block", () => {
    const full = "n1[tool]n2[tool]the final answer";
    expect(selectDeliveryText(full, "n1[tool]n2[tool]".length, false)).toBe("the final answer");
  });

  it("select_delivery_text_streaming_keeps_full_buffer", () => {
    expect(selectDeliveryText("narration then answer", 10, true)).toBe("narration then answer");
  });

  it("select_delivery_text_send_once_no_tools_keeps_everything", () => {
    const full = `${NOTICE}just the answer`;
    expect(selectDeliveryText(full, 0, false)).toBe(full);
  });

  it("select_delivery_text_stale_offset_falls_back_to_full", () => {
    expect(selectDeliveryText("abc", 999, false)).toBe("abc");
    // Upstream's non-boundary case is a byte inside '✓'; in UTF-16 the analogue is inside a surrogate pair.
    expect(selectDeliveryText("😀x", 1, false)).toBe("😀x");
    expect(selectDeliveryText("abc", -1, false)).toBe("abc");
    expect(selectDeliveryText("abc", 1.5, false)).toBe("abc");
    expect(selectDeliveryText("abc", 3, false)).toBe("");
  });
});

describe("splitDelivery", () => {
  it("split_delivery_send_once_preserves_leading_directive_across_tools", () => {
    const full = "[[reply_to:101]]\nlet me check...[tool]the final answer";
    const answerStart = "[[reply_to:101]]\nlet me check...[tool]".length;
    expect(splitDelivery(full, answerStart, false)).toStrictEqual({ replyTo: "101", body: "the final answer" });
  });

  it("split_delivery_send_once_no_tools_strips_directive_from_body", () => {
    expect(splitDelivery("[[reply_to:55]]\njust the answer", 0, false)).toStrictEqual({ replyTo: "55", body: "just the answer" });
  });

  it("split_delivery_streaming_keeps_full_body_and_directive", () => {
    expect(splitDelivery("[[reply_to:7]]\nnarration then answer", 5, true)).toStrictEqual({
      replyTo: "7",
      body: "narration then answer",
    });
  });

  it("keeps a [[…]] after the last tool as content: it is not at the start of the output", () => {
    const full = "narration[[reply_to:9]]\nanswer";
    expect(splitDelivery(full, "narration".length, false)).toStrictEqual({ body: "[[reply_to:9]]\nanswer" });
  });
});

describe("finalizeBody", () => {
  it("finalize_body_reset_send_once_with_tools_prepends_notice", () => {
    expect(finalizeBody(true, false, 42, "the final answer")).toBe(`${NOTICE}the final answer`);
  });

  it("finalize_body_reset_send_once_no_tools_passes_through", () => {
    expect(finalizeBody(true, false, 0, `${NOTICE}the final answer`)).toBe(`${NOTICE}the final answer`);
  });

  it("finalize_body_reset_keep_full_passes_through", () => {
    expect(finalizeBody(true, true, 42, `${NOTICE}narration then answer`)).toBe(`${NOTICE}narration then answer`);
  });

  it("finalize_body_no_reset_send_once_passes_through", () => {
    expect(finalizeBody(false, false, 42, "the final answer")).toBe("the final answer");
  });

  it("finalize_body_no_reset_keep_full_passes_through", () => {
    expect(finalizeBody(false, true, 0, "the final answer")).toBe("the final answer");
  });
});

describe("classifyEmptyTurn", () => {
  it("empty_turn_silent_failure_produces_diagnostic", () => {
    const usage = { outputTokens: 0, inputTokens: 0, totalTokens: 0 };
    expect(classifyEmptyTurn({ stopReason: "end_turn", usage })).toBe(SILENT_FAILURE_TEXT);
    expect(SILENT_FAILURE_TEXT).toBe(
      "⚠️ The agent did not produce a response. This usually indicates a backend configuration issue — not an intentional empty reply. Please try again later.",
    );
  });

  it("empty_turn_silent_failure_nonzero_input_still_diagnostic", () => {
    const usage = { outputTokens: 0, inputTokens: 150, totalTokens: 150 };
    expect(classifyEmptyTurn({ stopReason: "end_turn", usage })).toBe(SILENT_FAILURE_TEXT);
  });

  it("empty_turn_response_error_takes_precedence", () => {
    const usage = { outputTokens: 0, inputTokens: 0, totalTokens: 0 };
    expect(classifyEmptyTurn({ stopReason: "end_turn", usage, agentError: "Agent process died" })).toBe("⚠️ Agent process died");
  });

  it("empty_turn_missing_usage_shows_no_response", () => {
    expect(classifyEmptyTurn({})).toBe("_(no response)_");
    expect(classifyEmptyTurn({ stopReason: "end_turn" })).toBe("_(no response)_");
  });

  it("empty_turn_nonzero_output_shows_no_response", () => {
    const usage = { outputTokens: 50, inputTokens: 10, totalTokens: 60 };
    expect(classifyEmptyTurn({ stopReason: "end_turn", usage })).toBe(NO_RESPONSE_TEXT);
  });

  it("empty_turn_different_stop_reason_shows_no_response", () => {
    const usage = { outputTokens: 0, inputTokens: 10, totalTokens: 10 };
    expect(classifyEmptyTurn({ stopReason: "max_tokens", usage })).toBe(NO_RESPONSE_TEXT);
  });
});

describe("planTextReply", () => {
  it("takes reply_to from a [[reply_to:m1]] header and strips it from the message", () => {
    expect(planTextReply(turn(text("[[reply_to:m1]]\nHello")), sendOnce)).toStrictEqual({ chunks: ["Hello"], replyTo: "m1" });
  });

  it("splits a 9,000-char reply at limit 4096 into 3 chunks", () => {
    const reply = "x".repeat(9_000);
    const { chunks } = planTextReply(turn(text(reply)), sendOnce);
    expect(chunks.map((chunk) => chunk.length)).toStrictEqual([4096, 4096, 808]);
    expect(chunks.join("")).toBe(reply);
  });

  it("sends _(no response)_ for an empty turn", () => {
    expect(planTextReply(turn({ type: "end", stopReason: "end_turn" }), sendOnce)).toStrictEqual({ chunks: ["_(no response)_"] });
  });

  it("sends the diagnostic and flags the silent failure for end_turn with 0 output tokens", () => {
    const plan = planTextReply(turn({ type: "end", stopReason: "end_turn", usage: { outputTokens: 0 } }), sendOnce);
    expect(plan).toStrictEqual({ chunks: [SILENT_FAILURE_TEXT], silentFailure: true });
  });

  it("sends ⚠️ <error> for an empty turn that failed, and puts it in front of the text it has", () => {
    const died = (transcript: TurnTranscript) => ({ ...transcript, agentError: "Agent process died" });
    expect(planTextReply(died(turn()), sendOnce).chunks).toStrictEqual(["⚠️ Agent process died"]);
    expect(planTextReply(died(turn(text("partial"))), sendOnce).chunks).toStrictEqual(["⚠️ Agent process died\n\npartial"]);
  });

  it("delivers only the text after the last tool, under the tool summary", () => {
    const transcript = turn(text("let me look"), ...toolRun("1", "grep"), ...toolRun("2", "grep"), text("the answer  \n"));
    expect(planTextReply(transcript, sendOnce).chunks).toStrictEqual(["✅ `grep` (×2)\n\nthe answer"]);
    expect(planTextReply(transcript, { ...sendOnce, toolDisplay: "compact" }).chunks).toStrictEqual(["✅ 2 tool(s)\n\nthe answer"]);
    expect(planTextReply(transcript, { ...sendOnce, toolDisplay: "none" }).chunks).toStrictEqual(["the answer"]);
  });

  it("keeps the narration with keepFullText (narration_display)", () => {
    const transcript = turn(text("[[reply_to:7]]\nlet me look. "), ...toolRun("1", "grep", "failed"), text("the answer"));
    expect(planTextReply(transcript, { ...sendOnce, keepFullText: true })).toStrictEqual({
      chunks: ["❌ `grep`\n\nlet me look. the answer"],
      replyTo: "7",
    });
  });

  it("keeps the leading directive when the narration it headed is dropped", () => {
    const transcript = turn(text("[[reply_to:7]]\n[[delivery:openab.turn.v1]]\nlooking"), ...toolRun("1", "grep"), text("done"));
    expect(planTextReply(transcript, sendOnce)).toStrictEqual({
      chunks: ["✅ `grep`\n\ndone"],
      replyTo: "7",
      declaredSchema: "openab.turn.v1",
    });
  });

  it("re-adds the reset notice under the summary when a tool dropped it from the slice", () => {
    const transcript = turn({ type: "session_reset" }, text("looking"), ...toolRun("1", "grep"), text("answer"));
    expect(planTextReply(transcript, sendOnce).chunks).toStrictEqual([`✅ \`grep\`\n\n${SESSION_RESET_NOTICE}answer`]);
    expect(planTextReply(transcript, { ...sendOnce, keepFullText: true }).chunks).toStrictEqual([
      `✅ \`grep\`\n\n${SESSION_RESET_NOTICE}lookinganswer`,
    ]);
  });

  it("keeps the notice once when no tool ran", () => {
    expect(planTextReply(turn({ type: "session_reset" }, text("answer")), sendOnce).chunks).toStrictEqual([`${NOTICE}answer`]);
  });

  it("does not see a directive behind the reset notice, as OpenAB (the notice is the first line)", () => {
    const plan = planTextReply(turn({ type: "session_reset" }, text("[[reply_to:1]]\nhi")), sendOnce);
    expect(plan).toStrictEqual({ chunks: [`${NOTICE}[[reply_to:1]]\nhi`] });
  });

  it("sends the tool summary alone when the agent said nothing after its tools, as OpenAB", () => {
    const transcript = turn(...toolRun("1", "grep"), { type: "end", stopReason: "end_turn", usage: { outputTokens: 0 } });
    expect(planTextReply(transcript, sendOnce)).toStrictEqual({ chunks: ["✅ `grep`\n\n"] });
  });

  it("treats a whitespace-only reply as empty", () => {
    expect(planTextReply(turn(text(" \n\t")), sendOnce).chunks).toStrictEqual([NO_RESPONSE_TEXT]);
  });

  it("composeTextReply gives the reply before chunking", () => {
    expect(composeTextReply(turn(text("[[reply_to:m1]]  hi")), sendOnce)).toStrictEqual({ text: "hi", replyTo: "m1" });
  });
});

describe("composeTextReply with files (issue 42)", () => {
  const file = { type: "file_ready", filename: "chart.png", size: 10, caption: "", ready: { kind: "stored", mimeType: "image/png", image: true, ref: "r" } } as const;
  it("a turn whose reply is only files says nothing: no `_(no response)_` before them", () => {
    const transcript = { ...turn({ type: "end", stopReason: "end_turn" }), files: [{ at: 0, file }] };
    expect(composeTextReply(transcript, { toolDisplay: "full", keepFullText: false }).text).toBe("");
  });
  it("an agent error with only files still says the error", () => {
    const transcript = { ...turn({ type: "end", stopReason: "end_turn" }), agentError: "boom", files: [{ at: 0, file }] };
    expect(composeTextReply(transcript, { toolDisplay: "full", keepFullText: false }).text).toBe("⚠️ boom");
  });
});
