import type { TurnEnvelope } from "../../operators/delivery/envelope/envelopeShape.js";
import { rustTrim } from "../../operators/delivery/text/rustWhitespace.js";
import { charCount } from "../../operators/delivery/text/graphemes.js";
import { wrapPlainText } from "./renderEnvelope.js";
import type { ReplyMode } from "./replyTool.js";

/** What a model's answer without tool calls (the turn's closing text) turns into. */
export type ClosingAction =
  /** Envelope mode: the text as a one-bubble envelope. */
  | { readonly kind: "envelope"; readonly envelope: TurnEnvelope }
  /** Envelope mode: the text is longer than one bubble may be; `note` asks the model to use `reply`. */
  | { readonly kind: "too_long"; readonly note: string }
  /** Sequential mode, nothing sent yet: the text as the turn's one bubble. */
  | { readonly kind: "bubble"; readonly text: string }
  /** Sequential mode, nothing sent and nothing said: the broker's silent token as text. */
  | { readonly kind: "silent_token"; readonly token: string }
  | { readonly kind: "nothing"; readonly reason: "empty" | "already_replied" };

export interface ClosingContext {
  /** Bubbles this turn already sent through `reply` (sequential mode). */
  readonly bubblesSent: number;
  /** The broker's `[silent] token`; empty: send nothing instead. */
  readonly silentToken: string;
  readonly schema: string;
  /** Envelope mode: the broker's per-bubble limit; 0: none. */
  readonly maxBubbleChars: number;
}

/**
 * Decides what the closing text becomes. Envelope mode wraps it (nothing for empty text: the
 * model had `next: "silent"` for silence; a text too long for one bubble goes back to the model,
 * since the broker would reject the envelope). Sequential mode mirrors that with one `openab_message`
 * when no bubble went out yet; after a `reply` the text is the model talking to itself ("sent!")
 * and is dropped; a turn with neither is silence, spelled as the broker's silent token because a
 * sequential turn without bubbles falls back to the text path, where empty text reads
 * `_(no response)_`.
 */
export function closingAction(mode: ReplyMode, text: string, context: ClosingContext): ClosingAction {
  if (mode === "envelope") {
    const envelope = wrapPlainText(text, context.schema);
    if (envelope === null) return { kind: "nothing", reason: "empty" };
    const chars = charCount(envelope.messages[0]?.text ?? "");
    const max = context.maxBubbleChars;
    if (max <= 0 || chars <= max) return { kind: "envelope", envelope };
    return {
      kind: "too_long",
      note: `Your answer was not delivered: it is ${chars} characters, over the ${max}-character limit for one message. Send it with the reply tool instead, split between sentences into several messages.`,
    };
  }
  if (context.bubblesSent > 0) return { kind: "nothing", reason: "already_replied" };
  const trimmed = rustTrim(text);
  if (trimmed !== "") return { kind: "bubble", text: trimmed };
  return context.silentToken === "" ? { kind: "nothing", reason: "empty" } : { kind: "silent_token", token: context.silentToken };
}
