import { z } from "zod";
import { rustTrim } from "../../operators/delivery/text/rustWhitespace.js";
import { ReplyInputError } from "./errors.js";

/** The tool's name, as the model sees it and as the prompt appendix names it. */
export const REPLY_TOOL_NAME = "reply";

/**
 * `envelope`: one terminal `reply` per turn, rendered into an `openab.turn.v1` envelope (for a
 * broker in structured mode). `sequential`: each `reply` call goes out at once as `openab_message`
 * bubbles and the model keeps working (for a broker in sequential mode).
 */
export type ReplyMode = "envelope" | "sequential";
export const replyModes: readonly ReplyMode[] = ["envelope", "sequential"];

export interface ReplyToolOptions {
  readonly mode: ReplyMode;
  /** Bubbles per turn; the schema's `maxItems`. */
  readonly maxBubbles: number;
  /**
   * Envelope mode: characters per message (the broker's `[delivery] max_bubble_chars`, which
   * rejects a whole envelope with one longer message); the schema's `maxLength`. 0 or unset: none.
   */
  readonly maxBubbleChars?: number;
}

/** The values of `next` the model may choose; `tool` is the broker's, never the model's. */
export const replyNexts = ["stop", "wait", "silent"] as const;
export type ReplyNext = (typeof replyNexts)[number];

const MESSAGES_DESCRIPTION =
  "The chat messages to send, in order. Each string becomes one message; it may span several lines.";
const NEXT_DESCRIPTION =
  "stop: you are done (default). wait: you are done and expect the user to answer. silent: send nothing (with empty messages).";

/**
 * The `reply` tool's input as a zod schema. Sequential replies are not terminal, so they carry no
 * `next`: the turn ends when the model stops calling tools.
 */
export function replyInputSchema({ mode, maxBubbles, maxBubbleChars = 0 }: ReplyToolOptions) {
  if (mode === "sequential") return z.strictObject({ messages: z.array(z.string()).max(maxBubbles).describe(MESSAGES_DESCRIPTION) });
  const text = maxBubbleChars > 0 ? z.string().max(maxBubbleChars) : z.string();
  const messages = z.array(text).max(maxBubbles).describe(MESSAGES_DESCRIPTION);
  return z.strictObject({ messages, next: z.enum(replyNexts).optional().describe(NEXT_DESCRIPTION) });
}

/** The `reply` tool's input as JSON Schema (generated from `replyInputSchema`), for a model provider. */
export function replyToolSchema(options: ReplyToolOptions): Record<string, unknown> {
  // Providers take the schema object itself; the `$schema` dialect marker is noise to them.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(replyInputSchema(options)) as Record<string, unknown>;
  return schema;
}

/** The `reply` tool as an OpenAI-compatible chat-completions `tools[]` entry. */
export function replyTool(options: ReplyToolOptions): ChatTool {
  const description =
    options.mode === "envelope"
      ? `Send your reply to the user and end your turn. At most ${options.maxBubbles} messages; to stay silent, send no messages and next "silent".`
      : `Send messages to the user right now; you may keep working and call it again. At most ${options.maxBubbles} messages in the whole turn.`;
  return { type: "function", function: { name: REPLY_TOOL_NAME, description, parameters: replyToolSchema(options) } };
}

/** A chat-completions function tool. */
export interface ChatTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: Record<string, unknown> };
}

/** A `reply` call's input, read leniently: the texts to send and whatever `next` the model wrote. */
export interface ReplyInput {
  /** Trimmed, blank entries dropped, order kept. */
  readonly messages: readonly string[];
  /** As written (`undefined` when absent); `renderEnvelope` decides what it means. */
  readonly next: unknown;
}

const LONE_SURROGATE = /\p{Surrogate}/gu;

/**
 * Reads a `reply` call's input (already parsed from JSON). Blank messages are dropped; anything
 * that is not `{messages: string[]}` throws `ReplyInputError("malformed")`. Keys beyond
 * `messages` and `next` are ignored: the output is built by code, so they cannot leak into it.
 */
export function readReplyInput(input: unknown): ReplyInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ReplyInputError("malformed", "the reply input must be an object with a `messages` array");
  }
  const fields = input as Record<string, unknown>;
  if (!("messages" in fields)) throw new ReplyInputError("malformed", "missing field `messages`");
  const { messages } = fields;
  if (!Array.isArray(messages)) throw new ReplyInputError("malformed", "`messages` must be an array of strings");
  const texts = messages.map((message: unknown, index) => {
    if (typeof message !== "string") throw new ReplyInputError("malformed", `\`messages[${index}]\` must be a string`);
    // A lone surrogate (`"\ud800"` in the model's JSON) would make the broker reject the envelope.
    return rustTrim(message.replace(LONE_SURROGATE, "\uFFFD"));
  });
  return { messages: texts.filter((text) => text !== ""), next: fields.next };
}

/** The texts of a sequential `reply` call: `readReplyInput` without `next`. */
export function bubblesFromToolInput(input: unknown): string[] {
  return [...readReplyInput(input).messages];
}

/** A `reply` call's `arguments` string as JSON; invalid JSON is a malformed reply. */
export function parseReplyArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ReplyInputError("malformed", "the tool arguments are not valid JSON", { cause: err });
  }
}
