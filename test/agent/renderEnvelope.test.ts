import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parseEnvelope } from "../../operators/delivery/envelope/envelope.js";
import { rustTrim } from "../../operators/delivery/text/rustWhitespace.js";
import { ReplyInputError } from "../../src/agent/errors.js";
import { renderEnvelope, UNKNOWN_NEXT_WARNING, wrapPlainText } from "../../src/agent/renderEnvelope.js";

const options = { schema: "openab.turn.v1", maxBubbles: 4 };
const brokerLimits = { schema: "openab.turn.v1", maxBubbles: 4, maxBubbleChars: 0 };
const render = (input: unknown) => renderEnvelope(input, options);

function rejection(run: () => unknown): ReplyInputError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ReplyInputError);
    return err as ReplyInputError;
  }
  throw new Error("expected a ReplyInputError");
}

describe("renderEnvelope (upstream turn_envelope.rs)", () => {
  it("render_fills_in_schema_ids_and_next_shape", () => {
    const { envelope, warnings } = render({ messages: ["red", "green"], next: "wait" });
    expect(envelope).toStrictEqual({
      schema: "openab.turn.v1",
      messages: [
        { id: "bubble_1", text: "red" },
        { id: "bubble_2", text: "green" },
      ],
      next: { type: "wait" },
    });
    expect(Object.keys(envelope)).toEqual(["schema", "messages", "next"]);
    expect(warnings).toEqual([]);
  });

  it("render_defaults_next_to_stop", () => {
    expect(render({ messages: ["hey"] }).envelope.next).toStrictEqual({ type: "stop" });
  });

  it("render_keeps_newlines_inside_one_bubble", () => {
    expect(render({ messages: ["alpha\nbeta\ngamma"] }).envelope.messages).toStrictEqual([{ id: "bubble_1", text: "alpha\nbeta\ngamma" }]);
  });

  it("render_allows_silent_with_no_messages", () => {
    expect(render({ messages: [], next: "silent" }).envelope).toStrictEqual({ schema: "openab.turn.v1", messages: [], next: { type: "silent" } });
  });

  it("a silent reply drops the messages it declared", () => {
    expect(render({ messages: ["ignore me"], next: "silent" }).envelope.messages).toEqual([]);
  });

  it("render_rejects_an_empty_turn_that_is_not_silent", () => {
    expect(rejection(() => render({ messages: [] })).problem).toBe("empty_turn");
    expect(rejection(() => render({ messages: ["  ", ""], next: "stop" })).problem).toBe("empty_turn");
    expect(rejection(() => render({ messages: [], next: "wait" })).problem).toBe("empty_turn");
  });

  it("render_drops_blank_messages_and_renumbers", () => {
    expect(render({ messages: ["", "on it", "  \n", "done", "\t"] }).envelope.messages).toStrictEqual([
      { id: "bubble_1", text: "on it" },
      { id: "bubble_2", text: "done" },
    ]);
  });

  it("render_rejects_over_cap_rather_than_truncating", () => {
    const error = rejection(() => render({ messages: ["1", "2", "3", "4", "5"] }));
    expect(error.problem).toBe("over_cap");
    expect(error.message).toBe("reply tool returned 5 messages, over the 4 cap");
    // Blank entries are not bubbles, so they do not count against the cap.
    expect(render({ messages: ["1", "", "2", "3", " ", "4"] }).envelope.messages).toHaveLength(4);
    // The cap holds for a silent reply too, as the broker checks it before silence.
    expect(rejection(() => render({ messages: ["1", "2", "3", "4", "5"], next: "silent" })).problem).toBe("over_cap");
  });

  it("rejects a message over maxBubbleChars (the broker would reject the whole envelope), counting code points", () => {
    const limited = { ...options, maxBubbleChars: 5 };
    expect(renderEnvelope({ messages: ["12345", "🌤🌤🌤🌤🌤"] }, limited).envelope.messages).toHaveLength(2);
    const error = rejection(() => renderEnvelope({ messages: ["ok", "123456"] }, limited));
    expect(error.problem).toBe("too_long");
    expect(error.message).toBe("message 2 is 6 characters, over the 5-character limit per message; shorten it or split it between sentences");
    // Measured after trimming, so surrounding whitespace never pushes a message over.
    expect(renderEnvelope({ messages: ["  12345  "] }, limited).envelope.messages[0]?.text).toBe("12345");
    expect(renderEnvelope({ messages: ["x".repeat(10_000)] }, { ...options, maxBubbleChars: 0 }).envelope.messages).toHaveLength(1);
  });

  it("render_coerces_an_unknown_next_to_stop", () => {
    for (const next of ["escalate", "tool", "STOP", 3, { type: "silent" }, null]) {
      const { envelope, warnings } = render({ messages: ["hi"], next });
      expect(envelope.next, JSON.stringify(next)).toStrictEqual({ type: "stop" });
      expect(warnings).toEqual([UNKNOWN_NEXT_WARNING]);
    }
  });

  it("render_rejects_malformed_tool_input", () => {
    for (const input of [undefined, null, "on it", ["on it"], {}, { messages: "on it" }, { messages: [{ id: "b1", text: "on it" }] }]) {
      expect(rejection(() => render(input)).problem, JSON.stringify(input)).toBe("malformed");
    }
  });

  it("render_output_satisfies_the_broker_contract", () => {
    for (const input of [{ messages: ["red", "green", "blue"] }, { messages: ["  hey \n"], next: "wait" }, { messages: ['use {"a": 1} like this }'] }, { messages: [], next: "silent" }]) {
      const { envelope } = render(input);
      const parsed = parseEnvelope(JSON.stringify(envelope), brokerLimits);
      expect(parsed.ok, JSON.stringify(input)).toBe(true);
      if (parsed.ok) expect(parsed.plan.bubbles.map((bubble) => bubble.text)).toEqual(envelope.messages.map((message) => message.text));
    }
  });

  test.prop([fc.array(fc.string({ unit: "binary" }), { maxLength: 6 }), fc.constantFrom(undefined, "stop", "wait", "silent", "bogus")])(
    "whatever the model sends, the output parses on the broker or the input is rejected",
    (messages, next) => {
      let rendered;
      try {
        rendered = render({ messages, ...(next === undefined ? {} : { next }) });
      } catch (err) {
        expect(err).toBeInstanceOf(ReplyInputError);
        return;
      }
      const parsed = parseEnvelope(JSON.stringify(rendered.envelope), brokerLimits);
      expect(parsed.ok).toBe(true);
      const wellFormed = (text: string) => rustTrim(text.replace(/\p{Surrogate}/gu, "\uFFFD"));
      const expected = next === "silent" ? [] : messages.map(wellFormed).filter((text) => text !== "");
      if (parsed.ok) expect(parsed.plan.bubbles.map((bubble) => bubble.text)).toEqual(expected);
    },
  );

  it("replaces a lone surrogate, which the broker would reject, with U+FFFD", () => {
    expect(render({ messages: ["a\ud800b"] }).envelope.messages[0]?.text).toBe("a\uFFFDb");
    expect(render({ messages: ["🌤"] }).envelope.messages[0]?.text).toBe("🌤");
  });

  it("uses the configured schema", () => {
    expect(renderEnvelope({ messages: ["hi"] }, { schema: "acme.turn.v2", maxBubbles: 1 }).envelope.schema).toBe("acme.turn.v2");
    expect(renderEnvelope({ messages: ["hi"] }, { maxBubbles: 1 }).envelope.schema).toBe("openab.turn.v1");
  });
});

describe("wrapPlainText", () => {
  it("wrap_plain_text_produces_a_single_bubble", () => {
    const envelope = wrapPlainText("sure thing\nsee you at 8");
    expect(envelope).toStrictEqual({ schema: "openab.turn.v1", messages: [{ id: "bubble_1", text: "sure thing\nsee you at 8" }], next: { type: "stop" } });
    const parsed = parseEnvelope(JSON.stringify(envelope), brokerLimits);
    expect(parsed.ok && parsed.plan.bubbles.map((bubble) => bubble.text)).toEqual(["sure thing\nsee you at 8"]);
  });

  it("wrap_plain_text_returns_none_for_empty", () => {
    expect(wrapPlainText("")).toBeNull();
    expect(wrapPlainText("  \n\t ")).toBeNull();
  });

  it("wraps text that itself looks like an envelope as one bubble of text", () => {
    const text = '{"schema":"openab.turn.v1","messages":[]}';
    expect(wrapPlainText(text)?.messages).toStrictEqual([{ id: "bubble_1", text }]);
  });
});
