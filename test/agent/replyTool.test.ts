import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ReplyInputError } from "../../src/agent/errors.js";
import { bubblesFromToolInput, parseReplyArguments, readReplyInput, replyTool, replyToolSchema } from "../../src/agent/replyTool.js";

const ajv = new Ajv2020({ strict: true });
const accepts = (schema: Record<string, unknown>, input: unknown): boolean => ajv.validate(schema, input);

/** The thrown `ReplyInputError`'s problem, or a failure when nothing was thrown. */
function problemOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ReplyInputError);
    return (err as ReplyInputError).problem;
  }
  throw new Error("expected a ReplyInputError");
}

describe("replyToolSchema", () => {
  it("reply_tool_schema_caps_messages", () => {
    const schema = replyToolSchema({ mode: "envelope", maxBubbles: 3 });
    expect(schema).toMatchObject({ type: "object", properties: { messages: { type: "array", items: { type: "string" }, maxItems: 3 } } });
    expect(accepts(schema, { messages: ["a", "b", "c"] })).toBe(true);
    expect(accepts(schema, { messages: ["a", "b", "c", "d"] })).toBe(false);
    expect(replyToolSchema({ mode: "sequential", maxBubbles: 7 })).toMatchObject({ properties: { messages: { maxItems: 7 } } });
  });

  it("envelope_reply_tool_keeps_the_next_field", () => {
    const schema = replyToolSchema({ mode: "envelope", maxBubbles: 4 });
    expect(schema).toMatchObject({ properties: { next: { type: "string", enum: ["stop", "wait", "silent"] } }, required: ["messages"] });
    expect(accepts(schema, { messages: [], next: "silent" })).toBe(true);
    expect(accepts(schema, { messages: ["hi"] })).toBe(true);
    expect(accepts(schema, { messages: ["hi"], next: "tool" })).toBe(false);
  });

  it("sequential_reply_tool_drops_the_next_field", () => {
    const schema = replyToolSchema({ mode: "sequential", maxBubbles: 4 });
    expect(Object.keys(schema["properties"] as object)).toEqual(["messages"]);
    expect(accepts(schema, { messages: ["hi"] })).toBe(true);
    expect(accepts(schema, { messages: ["hi"], next: "stop" })).toBe(false);
  });

  it("envelope mode: maxBubbleChars caps each message's length (the broker's max_bubble_chars)", () => {
    const schema = replyToolSchema({ mode: "envelope", maxBubbles: 4, maxBubbleChars: 5 });
    expect(schema).toMatchObject({ properties: { messages: { items: { type: "string", maxLength: 5 } } } });
    expect(accepts(schema, { messages: ["12345"] })).toBe(true);
    expect(accepts(schema, { messages: ["123456"] })).toBe(false);
    expect(replyToolSchema({ mode: "envelope", maxBubbles: 4, maxBubbleChars: 0 })).toMatchObject({ properties: { messages: { items: { type: "string" } } } });
    expect(JSON.stringify(replyToolSchema({ mode: "envelope", maxBubbles: 4, maxBubbleChars: 0 }))).not.toContain("maxLength");
    // Sequential bubbles are split at the platform limit by the broker, never rejected for length.
    expect(JSON.stringify(replyToolSchema({ mode: "sequential", maxBubbles: 4, maxBubbleChars: 5 }))).not.toContain("maxLength");
  });

  it("is a plain JSON Schema object: no $schema marker, no extra keys allowed, messages required", () => {
    for (const mode of ["envelope", "sequential"] as const) {
      const schema = replyToolSchema({ mode, maxBubbles: 4 });
      expect(schema).not.toHaveProperty("$schema");
      expect(schema).toMatchObject({ additionalProperties: false, required: ["messages"] });
      expect(accepts(schema, { messages: ["hi"], confidence: 0.9 })).toBe(false);
      expect(accepts(schema, {})).toBe(false);
      expect(accepts(schema, { messages: [1] })).toBe(false);
    }
  });
});

describe("replyTool", () => {
  it("is a chat-completions function tool named reply, carrying the schema", () => {
    const tool = replyTool({ mode: "envelope", maxBubbles: 4 });
    expect(tool.type).toBe("function");
    expect(tool.function.name).toBe("reply");
    expect(tool.function.parameters).toStrictEqual(replyToolSchema({ mode: "envelope", maxBubbles: 4 }));
    expect(tool.function.description).toContain("4");
    expect(replyTool({ mode: "sequential", maxBubbles: 2 }).function.description).toContain("2");
  });
});

describe("bubblesFromToolInput", () => {
  it("bubbles_from_tool_input_drops_blanks", () => {
    expect(bubblesFromToolInput({ messages: ["on it", "", "   ", "\n\t", "done"] })).toEqual(["on it", "done"]);
    expect(bubblesFromToolInput({ messages: [] })).toEqual([]);
  });

  it("trims each message and keeps its inner newlines", () => {
    expect(bubblesFromToolInput({ messages: ["  alpha\nbeta\n"] })).toEqual(["alpha\nbeta"]);
  });

  it("bubbles_from_tool_input_rejects_malformed", () => {
    for (const input of [null, "hi", ["hi"], 42, {}, { messages: "hi" }, { messages: [1] }, { messages: ["ok", null] }, { text: ["hi"] }]) {
      expect(problemOf(() => bubblesFromToolInput(input)), JSON.stringify(input)).toBe("malformed");
    }
  });

  it("ignores fields it does not know, including next", () => {
    expect(bubblesFromToolInput({ messages: ["hi"], next: "stop", confidence: 1 })).toEqual(["hi"]);
  });

  it("names the field in its message, never the model's text", () => {
    expect(() => bubblesFromToolInput({ messages: ["SECRET-CANARY", 7] })).toThrow("`messages[1]` must be a string");
    try {
      bubblesFromToolInput({ messages: ["SECRET-CANARY", 7] });
    } catch (err) {
      expect(String(err)).not.toContain("SECRET-CANARY");
    }
  });
});

describe("readReplyInput and parseReplyArguments", () => {
  it("keeps next as written, for renderEnvelope to judge", () => {
    expect(readReplyInput({ messages: ["a"], next: "wait" })).toEqual({ messages: ["a"], next: "wait" });
    expect(readReplyInput({ messages: ["a"] }).next).toBeUndefined();
  });

  it("parses the arguments string; invalid JSON is malformed", () => {
    expect(parseReplyArguments('{"messages":["hi"]}')).toEqual({ messages: ["hi"] });
    expect(problemOf(() => parseReplyArguments('{"messages":["hi"'))).toBe("malformed");
  });
});
