import { untrustedName } from "../../ingress/untrustedText.js";

/**
 * Why a turn's output is not a deliverable `openab.turn.v1` envelope (`delivery-and-triage.md` §6).
 * `display` is OpenAB's text, byte for byte: it is logged (`structured turn did not parse`,
 * field `error`) and grepped. It never carries bubble text or raw JSON; only `schema_mismatch`
 * quotes a document value, the schema name, as upstream does (bounded and cleaned).
 */
export type EnvelopeError = EnvelopeErrorVariant & { readonly display: string };

export type EnvelopeErrorVariant =
  | { readonly kind: "not_structured" }
  | { readonly kind: "truncated" }
  /** `detail` names fields and positions, never document content. */
  | { readonly kind: "malformed"; readonly detail: string }
  | { readonly kind: "schema_mismatch"; readonly found: string }
  | { readonly kind: "too_many_bubbles"; readonly found: number; readonly max: number }
  | { readonly kind: "empty_bubble"; readonly index: number }
  | { readonly kind: "blank_bubble_id"; readonly index: number }
  | { readonly kind: "duplicate_bubble_id"; readonly index: number }
  | { readonly kind: "bubble_too_long"; readonly index: number; readonly chars: number; readonly max: number }
  | { readonly kind: "empty_turn" };

export type EnvelopeErrorKind = EnvelopeErrorVariant["kind"];

/** The error with its display string. */
export function envelopeError(variant: EnvelopeErrorVariant): EnvelopeError {
  return { ...variant, display: displayOf(variant) };
}

/**
 * The leak guard: true when the body holds envelope JSON (whole or truncated), so it must never be
 * sent as it is. Only "no envelope at all" may reach the user verbatim.
 */
export function foundEnvelope(error: EnvelopeErrorVariant): boolean {
  return error.kind !== "not_structured";
}

function displayOf(error: EnvelopeErrorVariant): string {
  switch (error.kind) {
    case "not_structured":
      // Always the constant, even when `[delivery] schema` names another schema (as upstream).
      return "no openab.turn.v1 envelope in turn output";
    case "truncated":
      return "envelope was truncated (unclosed object)";
    case "malformed":
      return `envelope did not deserialize: ${error.detail}`;
    case "schema_mismatch":
      // The agent's own string: bounded (100 chars) and cleaned for the log line; a real schema name passes as it is.
      return `unexpected schema \`${untrustedName(error.found)}\``;
    case "too_many_bubbles":
      return `${error.found} bubbles exceeds max_bubbles=${error.max}`;
    case "empty_bubble":
      return `bubble ${error.index} has empty text`;
    case "blank_bubble_id":
      return `bubble ${error.index} has a blank id`;
    case "duplicate_bubble_id":
      return `bubble ${error.index} reuses an id`;
    case "bubble_too_long":
      return `bubble ${error.index} is ${error.chars} chars, max_bubble_chars=${error.max}`;
    case "empty_turn":
      return "envelope has no bubbles and next.type != silent";
  }
}
