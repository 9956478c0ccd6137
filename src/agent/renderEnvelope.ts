import type { EnvelopeBubble, TurnEnvelope } from "../../operators/delivery/envelope/envelopeShape.js";
import { charCount } from "../../operators/delivery/text/graphemes.js";
import { rustTrim } from "../../operators/delivery/text/rustWhitespace.js";
import { ReplyInputError } from "./errors.js";
import { readReplyInput, replyNexts, type ReplyNext } from "./replyTool.js";

/** The envelope schema turnstream's broker expects by default (`[delivery] schema`). */
export const TURN_ENVELOPE_SCHEMA = "openab.turn.v1";

export interface RenderOptions {
  /** The envelope's `schema` value; `openab.turn.v1` unless the broker is configured otherwise. */
  readonly schema?: string;
  /** More non-blank messages than this is an error, never a truncation. */
  readonly maxBubbles: number;
  /** A longer message (in Unicode scalar values, as the broker counts) is an error; 0 or unset: no limit. */
  readonly maxBubbleChars?: number;
}

/** A rendered turn: exactly the keys `schema`, `messages`, `next`, with ids and `next` filled in by code. */
export interface RenderedEnvelope {
  readonly envelope: TurnEnvelope & { readonly next: { readonly type: ReplyNext } };
  /** Things the model got wrong that were repaired rather than rejected (log them). */
  readonly warnings: readonly string[];
}

/** The warning when the model's `next` is not one it may choose. */
export const UNKNOWN_NEXT_WARNING = "reply tool returned an unknown next; treating it as stop";

/**
 * Renders a `reply` call's input into an `openab.turn.v1` envelope (upstream `turn_envelope.rs`
 * `render`): blank messages dropped and the rest numbered `bubble_1..n`; a missing `next` is
 * `stop`, an unknown one becomes `stop` with a warning; more than `maxBubbles` messages, a
 * message over `maxBubbleChars` or an empty turn that is not silent throws `ReplyInputError`
 * (the broker would reject the whole envelope). A silent turn carries no messages.
 */
export function renderEnvelope(input: unknown, { schema = TURN_ENVELOPE_SCHEMA, maxBubbles, maxBubbleChars = 0 }: RenderOptions): RenderedEnvelope {
  const { messages, next: asked } = readReplyInput(input);
  const warnings: string[] = [];
  let next: ReplyNext = "stop";
  if (asked !== undefined) {
    if (replyNexts.includes(asked as ReplyNext)) next = asked as ReplyNext;
    else warnings.push(UNKNOWN_NEXT_WARNING);
  }
  if (messages.length > maxBubbles) {
    throw new ReplyInputError("over_cap", `reply tool returned ${messages.length} messages, over the ${maxBubbles} cap`);
  }
  const tooLong = overLongMessage(messages, maxBubbleChars);
  if (tooLong !== undefined) throw new ReplyInputError("too_long", tooLong);
  if (next === "silent") return { envelope: { schema, messages: [], next: { type: next } }, warnings };
  if (messages.length === 0) {
    throw new ReplyInputError("empty_turn", 'reply tool returned no messages; send at least one, or next "silent" to say nothing');
  }
  return { envelope: { schema, messages: numbered(messages), next: { type: next } }, warnings };
}

/**
 * The envelope for a model that answered in plain text instead of calling `reply`: one bubble
 * holding the whole text (a newline is not a bubble boundary), or `null` when there is no text.
 */
export function wrapPlainText(text: string, schema: string = TURN_ENVELOPE_SCHEMA): TurnEnvelope | null {
  const trimmed = rustTrim(text);
  if (trimmed === "") return null;
  return { schema, messages: numbered([trimmed]), next: { type: "stop" } };
}

/** Why the first message over `max` characters is too long, for the model; `undefined` when none is. */
export function overLongMessage(messages: readonly string[], max: number): string | undefined {
  if (max <= 0) return undefined;
  for (const [index, text] of messages.entries()) {
    const chars = charCount(text);
    if (chars > max) return `message ${index + 1} is ${chars} characters, over the ${max}-character limit per message; shorten it or split it between sentences`;
  }
  return undefined;
}

function numbered(texts: readonly string[]): EnvelopeBubble[] {
  return texts.map((text, index) => ({ id: `bubble_${index + 1}`, text }));
}
