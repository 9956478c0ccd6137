import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/agent/chatCompletions.js";
import { closeOpenToolCalls, promptText } from "../../src/agent/conversation.js";

const call = (id: string, name = "lookup") => ({ id, type: "function" as const, function: { name, arguments: "{}" } });

describe("promptText", () => {
  it("joins text blocks, embedded text resources and links; skips images", () => {
    const blocks = [
      { type: "text", text: "<sender_context>\n{}\n</sender_context>" },
      { type: "text", text: "hello" },
      { type: "image", mimeType: "image/png", data: "AAAA" },
      { type: "resource_link", uri: "https://example.com/a.pdf", name: "a.pdf" },
      { type: "resource", resource: { uri: "file:///notes.txt", text: "notes" } },
      { type: "resource", resource: { uri: "file:///x.bin", blob: "AAAA" } },
      null,
      "stray",
    ];
    expect(promptText(blocks)).toBe("<sender_context>\n{}\n</sender_context>\n\nhello\n\na.pdf: https://example.com/a.pdf\n\nnotes");
  });

  it("is empty without usable blocks", () => {
    expect(promptText([])).toBe("");
  });
});

describe("closeOpenToolCalls", () => {
  it("answers calls left without a result, right after their siblings", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "done" },
    ];
    expect(closeOpenToolCalls(messages, "cancelled")).toStrictEqual([...messages, { role: "tool", tool_call_id: "b", content: "cancelled" }]);
  });

  it("closes an earlier step before the next message", () => {
    const messages: ChatMessage[] = [
      { role: "assistant", content: null, tool_calls: [call("a")] },
      { role: "assistant", content: "ok" },
    ];
    expect(closeOpenToolCalls(messages, "x")).toStrictEqual([messages[0], { role: "tool", tool_call_id: "a", content: "x" }, messages[1]]);
  });

  it("leaves a complete conversation as it is", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [call("a")] },
      { role: "tool", tool_call_id: "a", content: "done" },
      { role: "assistant", content: "bye" },
    ];
    expect(closeOpenToolCalls(messages, "x")).toStrictEqual(messages);
  });
});
