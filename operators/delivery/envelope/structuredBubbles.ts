import { parseEnvelope, type EnvelopeLimits } from "./envelope.js";
import type { EnvelopeErrorKind } from "./envelopeError.js";
import type { TurnNext } from "./envelopeShape.js";
import { proseAroundEnvelope } from "./stripEnvelope.js";

/** `[delivery] on_parse_error`. */
export type OnParseError = "fallback_text" | "error_message" | "silent";

/** The `[delivery]` settings of structured mode. */
export interface StructuredOptions extends EnvelopeLimits {
  readonly onParseError: OnParseError;
  /** `[delivery] parse_error_text`: sent under `error_message`, or when stripping leaves nothing. */
  readonly parseErrorText: string;
}

/** A turn whose output did not parse; the caller logs it with these fields. */
export interface ParseFailure {
  /** The error's display string (`delivery-and-triage.md` §6). */
  readonly error: string;
  readonly policy: OnParseError;
  /** Stable tag of the error, for metrics; not part of upstream's log line. */
  readonly kind: EnvelopeErrorKind;
}

/** `next: tool`: the caller logs the name, never executes it. */
export interface ToolProposal {
  readonly name: string;
  readonly arguments: unknown;
}

export type StructuredBubblesPlan =
  | {
      readonly kind: "bubbles";
      /** In delivery order; each is chunked at the platform limit by the caller. Never empty. */
      readonly bubbles: string[];
      /** The envelope's `next`; absent when the bubbles are a parse-error fallback. */
      readonly next?: TurnNext;
      readonly toolProposal?: ToolProposal;
      readonly parseFailure?: ParseFailure;
    }
  | {
      readonly kind: "nothing";
      /** `silent_turn`: the agent chose to say nothing (`next` says how); `parse_error`: the `silent` policy. */
      readonly reason: "silent_turn" | "parse_error";
      readonly next?: TurnNext;
      /** Bubbles a silent envelope declared; when > 0 the caller warns that silence won over them. */
      readonly silenced?: number;
      readonly parseFailure?: ParseFailure;
    };

/**
 * OpenAB's `plan_structured_bubbles` (`delivery-and-triage.md` §7): the envelope's bubbles, or what
 * the parse-error policy makes of a body that did not parse. Only a body with no envelope at all
 * may reach the user verbatim (trimmed); any other failure goes through the envelope stripper, and
 * a fence left empty by stripping is dropped with it (§12 (f)). turnstream adds one guard: a body
 * that still holds envelope markers after that (`"messages"`, `openab.turn.`, the configured
 * schema, judged as written and JSON-decoded) is never sent; `parse_error_text` is
 * (`docs/delivery.md`, "The leak guard").
 */
export function planStructuredBubbles(body: string, options: StructuredOptions): StructuredBubblesPlan {
  const result = parseEnvelope(body, options);
  if (result.ok) {
    const { bubbles, next, silenced } = result.plan;
    if (bubbles.length === 0) return { kind: "nothing", reason: "silent_turn", next, ...(silenced > 0 ? { silenced } : {}) };
    const toolProposal = next.type === "tool" ? { name: next.name, arguments: next.arguments } : undefined;
    return { kind: "bubbles", bubbles: bubbles.map((bubble) => bubble.text), next, ...(toolProposal ? { toolProposal } : {}) };
  }

  const { error } = result;
  const parseFailure: ParseFailure = { error: error.display, policy: options.onParseError, kind: error.kind };
  switch (options.onParseError) {
    case "silent":
      return { kind: "nothing", reason: "parse_error", parseFailure };
    case "error_message":
      return { kind: "bubbles", bubbles: [options.parseErrorText], parseFailure };
    case "fallback_text": {
      // The parse's own finder: a found envelope (`foundEnvelope`) is stripped; without one this is
      // `trim(body)`, unless envelope markers are left (a mangled envelope no finder can place).
      const text = proseAroundEnvelope(body, options.schema);
      return { kind: "bubbles", bubbles: [text === "" ? options.parseErrorText : text], parseFailure };
    }
  }
}
