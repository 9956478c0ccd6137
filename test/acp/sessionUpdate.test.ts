import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { classifyUpdate, sessionUpdateParams } from "../../src/acp/sessionUpdate.js";
import { chatRedaction } from "../../src/log/secretScrubber.js";

type Update = Parameters<typeof classifyUpdate>[0];
const update = (sessionUpdate: string, fields: Record<string, unknown> = {}): Update => ({ sessionUpdate, ...fields });
const text = (value: string) => ({ type: "text", text: value });

describe("classifyUpdate", () => {
  describe("agent_message_chunk", () => {
    it("is text with its messageId", () => {
      expect(classifyUpdate(update("agent_message_chunk", { messageId: "msg_agent_c42b9", content: text("I'll analyze") }))).toStrictEqual({
        type: "text",
        text: "I'll analyze",
        messageId: "msg_agent_c42b9",
      });
    });

    it("is text without a messageId key when the agent sends none (old agents) or null", () => {
      expect(classifyUpdate(update("agent_message_chunk", { content: text("hi") }))).toStrictEqual({ type: "text", text: "hi" });
      const withNull = classifyUpdate(update("agent_message_chunk", { messageId: null, content: text("hi") }));
      expect(withNull).toStrictEqual({ type: "text", text: "hi" });
      expect(withNull).not.toHaveProperty("messageId");
    });

    it("keeps whitespace-only and empty text as text (the turn decides what is empty)", () => {
      expect(classifyUpdate(update("agent_message_chunk", { content: text("") }))).toStrictEqual({ type: "text", text: "" });
      expect(classifyUpdate(update("agent_message_chunk", { content: text("\n") }))).toStrictEqual({ type: "text", text: "\n" });
    });

    it("ignores extra fields such as _meta on a text chunk", () => {
      expect(
        classifyUpdate(update("agent_message_chunk", { content: { ...text("x"), annotations: {} }, _meta: { claudeCode: { a: 1 } } })),
      ).toStrictEqual({ type: "text", text: "x" });
    });

    it("is a file for an image (issue 42), and unknown, with the raw update, for other non-text content (audio)", () => {
      const image = update("agent_message_chunk", { content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } });
      expect(classifyUpdate(image)).toStrictEqual({ type: "file", file: { mimeType: "image/png", source: { kind: "base64", data: "iVBORw0KGgo=" } } });
      const raw = update("agent_message_chunk", { content: { type: "audio", data: "AAAA", mimeType: "audio/wav" } });
      expect(classifyUpdate(raw)).toStrictEqual({ type: "unknown", sessionUpdate: "agent_message_chunk", raw });
    });

    it("is unknown when content is missing or its text is not a string", () => {
      expect(classifyUpdate(update("agent_message_chunk"))).toMatchObject({ type: "unknown", sessionUpdate: "agent_message_chunk" });
      expect(classifyUpdate(update("agent_message_chunk", { content: { type: "text", text: 5 } }))).toMatchObject({ type: "unknown" });
    });
  });

  describe("agent_thought_chunk", () => {
    it("is a thought with its text", () => {
      expect(
        classifyUpdate(update("agent_thought_chunk", { messageId: "msg_thought_01", content: text("The user wants a code review") })),
      ).toStrictEqual({ type: "thought", text: "The user wants a code review" });
    });

    it("is unknown for a non-text thought", () => {
      const raw = update("agent_thought_chunk", { content: { type: "image", data: "", mimeType: "image/png" } });
      expect(classifyUpdate(raw)).toStrictEqual({ type: "unknown", sessionUpdate: "agent_thought_chunk", raw });
    });
  });

  describe("tool titles (shown to users in the tool summary)", () => {
    it("are bounded to 500 chars and cleaned; line breaks flattened as the summary flattens them", () => {
      const hostile = `Read \u001b[1mfile\u001b[0m\r\nnext\u0000 \u001b]0;x\u0007\`rm\` ${"x".repeat(1_000_000)}`;
      const start = classifyUpdate(update("tool_call", { toolCallId: "c", title: hostile })) as { title: string };
      expect(start.title.length).toBeLessThanOrEqual(500);
      expect(start.title.startsWith("Read file ; next 'rm' xxx")).toBe(true);
      expect(start.title).toMatch(/…\(\+[\d,]+ chars\)$/);
      const done = classifyUpdate(update("tool_call_update", { toolCallId: "c", status: "completed", title: hostile })) as { title: string };
      expect(done.title).toBe(start.title);
    });

    it("leave an ordinary title as upstream shows it", () => {
      expect(classifyUpdate(update("tool_call", { toolCallId: "c", title: "Run `ls`\nin /tmp" }))).toMatchObject({ title: "Run 'ls' ; in /tmp" });
    });

    it("have their secrets masked by the client's redaction, in tool_call and tool_call_update alike (issue 36 (a))", () => {
      const redact = chatRedaction(["Zq7XenvK-0c3d55-Wq"]);
      const title = "Run curl https://bob:T1tlePassw0rd@h.example.com/?access_token=TITLETOKEN42 -H 'X: Zq7XenvK-0c3d55-Wq'";
      const expected = "Run curl https://h.example.com/?access_token=[redacted] -H 'X: ***'";
      expect(classifyUpdate(update("tool_call", { toolCallId: "c", title }), redact)).toMatchObject({ title: expected });
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "c", title }), redact)).toMatchObject({ title: expected });
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "c", status: "failed", title }), redact)).toMatchObject({ title: expected });
    });
  });

  describe("tool_call", () => {
    it("is tool_start with id, title, kind, status and the raw input (for the activity message's preview)", () => {
      expect(
        classifyUpdate(
          update("tool_call", {
            toolCallId: "call_001",
            title: "Reading configuration file",
            kind: "read",
            status: "pending",
            locations: [{ path: "/home/user/project/config.json", line: 1 }],
            rawInput: { path: "/home/user/project/config.json" },
          }),
        ),
      ).toStrictEqual({
        type: "tool_start",
        id: "call_001",
        title: "Reading configuration file",
        kind: "read",
        status: "pending",
        input: { path: "/home/user/project/config.json" },
      });
    });

    it("is tool_start without kind and status keys when the agent omits them", () => {
      const event = classifyUpdate(update("tool_call", { toolCallId: "call_2", title: "Terminal" }));
      expect(event).toStrictEqual({ type: "tool_start", id: "call_2", title: "Terminal" });
      expect(Object.keys(event!)).toEqual(["type", "id", "title"]);
    });

    it.each(["pending", "in_progress", "completed", "failed"])("keeps status %s", (status) => {
      expect(classifyUpdate(update("tool_call", { toolCallId: "c", title: "t", status }))).toMatchObject({ type: "tool_start", status });
    });

    it("is unknown when toolCallId is missing (malformed), keeping the raw update", () => {
      const raw = update("tool_call", { title: "Reading file", kind: "read" });
      expect(classifyUpdate(raw)).toStrictEqual({ type: "unknown", sessionUpdate: "tool_call", raw });
    });

    it("is unknown for a status outside the ACP enum", () => {
      expect(classifyUpdate(update("tool_call", { toolCallId: "c", title: "t", status: "running" }))).toMatchObject({
        type: "unknown",
        sessionUpdate: "tool_call",
      });
    });
  });

  describe("tool_call_update", () => {
    it("is tool_update for in_progress, with title", () => {
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "call_001", status: "in_progress", title: "Edit config.json" }))).toStrictEqual({
        type: "tool_update",
        id: "call_001",
        title: "Edit config.json",
        status: "in_progress",
      });
    });

    it("is tool_update for pending, and for no status at all (only content changed)", () => {
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "c", status: "pending" }))).toStrictEqual({
        type: "tool_update",
        id: "c",
        status: "pending",
      });
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "c", content: [] }))).toStrictEqual({ type: "tool_update", id: "c" });
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "c", status: null, title: null }))).toStrictEqual({
        type: "tool_update",
        id: "c",
      });
    });

    it("is tool_done for completed, without title when the update has none", () => {
      const event = classifyUpdate(
        update("tool_call_update", {
          toolCallId: "call_001",
          status: "completed",
          content: [{ type: "content", content: text("Found 3 configuration files...") }],
          rawOutput: { ok: true },
        }),
      );
      expect(event).toStrictEqual({ type: "tool_done", id: "call_001", status: "completed" });
      expect(event).not.toHaveProperty("title");
    });

    it("is tool_done for failed, with title when the update has one", () => {
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "call_9", status: "failed", title: "Run tests" }))).toStrictEqual({
        type: "tool_done",
        id: "call_9",
        status: "failed",
        title: "Run tests",
      });
    });

    it("is tool_done without title when title is null", () => {
      expect(classifyUpdate(update("tool_call_update", { toolCallId: "c", status: "completed", title: null }))).toStrictEqual({
        type: "tool_done",
        id: "c",
        status: "completed",
      });
    });

    it("is unknown when toolCallId is missing", () => {
      const raw = update("tool_call_update", { status: "completed" });
      expect(classifyUpdate(raw)).toStrictEqual({ type: "unknown", sessionUpdate: "tool_call_update", raw });
    });
  });

  describe("plan", () => {
    it("is plan with every entry", () => {
      const entries = [
        { content: "Check for syntax errors", priority: "high", status: "pending" },
        { content: "Identify potential type issues", priority: "medium", status: "in_progress" },
      ];
      expect(classifyUpdate(update("plan", { entries }))).toStrictEqual({ type: "plan", entries });
    });

    it("is plan with no entries for an empty plan", () => {
      expect(classifyUpdate(update("plan", { entries: [] }))).toStrictEqual({ type: "plan", entries: [] });
    });

    it("is unknown for a plan without entries or with a malformed entry", () => {
      expect(classifyUpdate(update("plan"))).toMatchObject({ type: "unknown", sessionUpdate: "plan" });
      expect(classifyUpdate(update("plan", { entries: [{ content: "x" }] }))).toMatchObject({ type: "unknown", sessionUpdate: "plan" });
    });
  });

  describe("config_option_update", () => {
    it("is config_update with the full option list", () => {
      const configOptions = [
        {
          id: "model",
          name: "Model",
          category: "model",
          type: "select",
          currentValue: "model-2",
          options: [
            { value: "model-1", name: "Model 1" },
            { value: "model-2", name: "Model 2" },
          ],
        },
      ];
      expect(classifyUpdate(update("config_option_update", { configOptions }))).toStrictEqual({ type: "config_update", configOptions });
    });

    it("is unknown without configOptions", () => {
      expect(classifyUpdate(update("config_option_update"))).toMatchObject({ type: "unknown", sessionUpdate: "config_option_update" });
    });
  });

  describe("openab_message (OpenAB extension, acp.md §8.2)", () => {
    it("is an openab_message event with id and text", () => {
      expect(classifyUpdate(update("openab_message", { id: "bubble_1", content: text("on it") }))).toStrictEqual({
        type: "openab_message",
        id: "bubble_1",
        text: "on it",
      });
    });

    it('has id "" when the agent sends no id or a null one', () => {
      expect(classifyUpdate(update("openab_message", { content: text("on it") }))).toStrictEqual({
        type: "openab_message",
        id: "",
        text: "on it",
      });
      expect(classifyUpdate(update("openab_message", { id: null, content: text("on it") }))).toStrictEqual({
        type: "openab_message",
        id: "",
        text: "on it",
      });
    });

    it('keeps the bubble, with id "", when the id is not a string (the id is for log correlation only)', () => {
      expect(classifyUpdate(update("openab_message", { id: 2, content: text("gate B12") }))).toStrictEqual({
        type: "openab_message",
        id: "",
        text: "gate B12",
      });
    });

    it("is nothing at all (undefined, never a blank bubble) without content text", () => {
      expect(classifyUpdate(update("openab_message", { id: "bubble_3" }))).toBeUndefined();
      expect(classifyUpdate(update("openab_message", { id: "bubble_3", content: {} }))).toBeUndefined();
      expect(classifyUpdate(update("openab_message", { id: "bubble_3", content: { type: "text", text: null } }))).toBeUndefined();
      expect(classifyUpdate(update("openab_message", { id: "bubble_3", content: "on it" }))).toBeUndefined();
    });

    it("keeps empty text as an event (delivery ignores blank bubbles without counting them)", () => {
      expect(classifyUpdate(update("openab_message", { id: "b", content: text("  ") }))).toStrictEqual({
        type: "openab_message",
        id: "b",
        text: "  ",
      });
    });

    it("classifies the contract fixture sequential-message-v1.json exactly", async () => {
      const fixture = JSON.parse(await readFile(new URL("../../fixtures/sequential-message-v1.json", import.meta.url), "utf8")) as {
        method: string;
        params: unknown;
      };
      expect(fixture.method).toBe("session/update");
      const params = sessionUpdateParams.parse(fixture.params);
      expect(params.sessionId).toBe("session_123");
      expect(classifyUpdate(params.update)).toStrictEqual({
        type: "openab_message",
        id: "bubble_2",
        text: "your flight moved to 8pm\ngate B12",
      });
    });
  });

  describe("variants turnstream does not model become unknown, with the raw update preserved", () => {
    it.each([
      ["user_message_chunk", { messageId: "msg_user_1", content: text("hello"), _meta: { echo: true } }],
      ["usage_update", { used: 53000, size: 200000, cost: { amount: 0.045, currency: "USD" } }],
      ["available_commands_update", { availableCommands: [{ name: "web", description: "Search the web", input: { hint: "query" } }] }],
      ["current_mode_update", { currentModeId: "code" }],
      ["session_info_update", { title: "Refactor config loader", updatedAt: "2026-11-30T12:00:00Z" }],
      ["notice", { severity: "warning", title: "Rate limited" }],
      ["_vendor_progress", { percent: 40, _meta: { "vendor.example/trace": "abc" } }],
    ])("%s", (variant, fields) => {
      const raw = update(variant, fields);
      const event = classifyUpdate(raw);
      expect(event).toStrictEqual({ type: "unknown", sessionUpdate: variant, raw });
      // The very update object, so nothing (including _meta) is lost or copied.
      expect((event as { raw: unknown }).raw).toBe(raw);
    });

    it("keeps _meta in the raw update of an unknown variant", () => {
      const raw = update("usage_update", { used: 1, size: 2, _meta: { claudeCode: { cacheReadTokens: 12 } } });
      expect(classifyUpdate(raw)).toMatchObject({ raw: { _meta: { claudeCode: { cacheReadTokens: 12 } } } });
    });
  });
});

describe("sessionUpdateParams", () => {
  it("accepts params with sessionId and an update carrying sessionUpdate, keeping unknown fields", () => {
    const params = { sessionId: "s", update: { sessionUpdate: "usage_update", used: 1 }, _meta: { a: 1 } };
    expect(sessionUpdateParams.parse(params)).toEqual(params);
  });

  it.each([
    ["no sessionId", { update: { sessionUpdate: "plan" } }],
    ["no update", { sessionId: "s" }],
    ["an update without sessionUpdate", { sessionId: "s", update: { content: {} } }],
    ["a non-string sessionUpdate", { sessionId: "s", update: { sessionUpdate: 1 } }],
  ])("rejects params with %s", (_name, params) => {
    expect(sessionUpdateParams.safeParse(params).success).toBe(false);
  });
});
