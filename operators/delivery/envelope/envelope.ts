import { envelopeError, foundEnvelope, type EnvelopeError, type EnvelopeErrorVariant } from "./envelopeError.js";
import { decodeEnvelope, type TurnNext } from "./envelopeShape.js";
import { findEnvelopeSpan } from "./findEnvelopeSpan.js";
import { charCount } from "../text/graphemes.js";
import { rustTrim } from "../text/rustWhitespace.js";

/** The `[delivery]` settings the envelope is checked against. */
export interface EnvelopeLimits {
  /** `[delivery] schema`: the envelope's `schema` must equal it exactly. */
  readonly schema: string;
  /** More bubbles reject the whole plan; never truncated. */
  readonly maxBubbles: number;
  /** Per bubble, in chars (Unicode scalar values) of the untrimmed text; 0 disables the check. */
  readonly maxBubbleChars: number;
}

export interface StructuredBubble {
  readonly id: string;
  /** Trimmed; may span several lines: a newline is not a bubble boundary. */
  readonly text: string;
}

/** What a valid envelope asks for: the bubbles to send, in order, and what comes next. */
export interface TurnPlan {
  /** Empty exactly when `next.type` is `silent`. */
  readonly bubbles: readonly StructuredBubble[];
  readonly next: TurnNext;
  /**
   * Bubbles a `silent` envelope declared and that are not sent. When > 0 the caller warns
   * (field `bubbles`), as upstream does.
   */
  readonly silenced: number;
}

export type EnvelopeResult =
  | { readonly ok: true; readonly plan: TurnPlan }
  /** `foundEnvelope`: the leak guard (see `foundEnvelope` in `envelopeError.ts`). */
  | { readonly ok: false; readonly error: EnvelopeError; readonly foundEnvelope: boolean };

/**
 * OpenAB's `parse_structured` (`delivery-and-triage.md` §3): finds the envelope in the turn body
 * (after directive stripping; prose, a reset notice or a code fence around it are tolerated),
 * decodes it strictly and applies the rules in upstream's order. The first failing rule decides.
 */
export function parseEnvelope(text: string, limits: EnvelopeLimits): EnvelopeResult {
  const span = findEnvelopeSpan(text, limits.schema);
  if (span === undefined) return failure({ kind: "not_structured" });
  if (!span.complete) return failure({ kind: "truncated" });

  const decoded = decodeEnvelope(text.slice(span.start, span.end));
  if (!decoded.ok) return failure({ kind: "malformed", detail: decoded.detail });
  const { schema, messages, next } = decoded.envelope;

  if (schema !== limits.schema) return failure({ kind: "schema_mismatch", found: schema });
  // Before any per-bubble rule, and for silent turns too.
  if (messages.length > limits.maxBubbles) {
    return failure({ kind: "too_many_bubbles", found: messages.length, max: limits.maxBubbles });
  }

  const seen = new Set<string>();
  for (const [index, { id, text: bubbleText }] of messages.entries()) {
    const trimmedId = rustTrim(id);
    if (trimmedId === "") return failure({ kind: "blank_bubble_id", index });
    if (seen.has(trimmedId)) return failure({ kind: "duplicate_bubble_id", index });
    seen.add(trimmedId);
    if (rustTrim(bubbleText) === "") return failure({ kind: "empty_bubble", index });
    if (limits.maxBubbleChars > 0) {
      // Upstream measures the text as written, before trimming.
      const chars = charCount(bubbleText);
      if (chars > limits.maxBubbleChars) {
        return failure({ kind: "bubble_too_long", index, chars, max: limits.maxBubbleChars });
      }
    }
  }

  // Silent wins, but only over bubbles that passed validation.
  if (next.type === "silent") return { ok: true, plan: { bubbles: [], next, silenced: messages.length } };
  if (messages.length === 0) return failure({ kind: "empty_turn" });
  const bubbles = messages.map(({ id, text: bubbleText }) => ({ id: rustTrim(id), text: rustTrim(bubbleText) }));
  return { ok: true, plan: { bubbles, next, silenced: 0 } };
}

function failure(variant: EnvelopeErrorVariant): EnvelopeResult {
  return { ok: false, error: envelopeError(variant), foundEnvelope: foundEnvelope(variant) };
}
