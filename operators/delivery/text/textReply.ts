import type { TokenUsage } from "../agentEvent.js";
import { parseOutputDirectives, type OutputDirectives } from "./outputDirectives.js";
import { splitMessage } from "./splitMessage.js";
import { composeDisplay, type ToolDisplay } from "../status/toolSummary.js";
import { SESSION_RESET_NOTICE, type TurnTranscript } from "../turnTranscript.js";

/** Shown when the turn said nothing and nothing went wrong that we know of. */
export const NO_RESPONSE_TEXT = "_(no response)_";

/** Shown when the agent ended normally with zero output tokens: a provider/model/auth failure. */
export const SILENT_FAILURE_TEXT =
  "⚠️ The agent did not produce a response. This usually indicates a backend configuration issue — not an intentional empty reply. Please try again later.";

export interface TextReplyOptions {
  /** `[reactions] tool_display`. */
  readonly toolDisplay: ToolDisplay;
  /** `[reactions] narration_display`: deliver the whole buffer, not only the text after the last tool. */
  readonly keepFullText: boolean;
  /** The platform's message limit, in chars (Unicode scalar values). */
  readonly limit: number;
}

/** The reply before chunking. */
export interface TextReply {
  readonly text: string;
  /** From `[[reply_to:…]]`: the first message quotes this platform message. */
  readonly replyTo?: string;
  /** From `[[delivery:…]]`; the caller warns when it differs from `[delivery] schema`. */
  readonly declaredSchema?: string;
  /** Set when the turn was empty with `end_turn` and 0 output tokens; the caller warns (OpenAB does). */
  readonly silentFailure?: boolean;
}

export interface TextReplyPlan extends Omit<TextReply, "text"> {
  /** The messages to send, in order; never empty. */
  readonly chunks: string[];
}

/** The messages a finished turn sends on the text path (`delivery-and-triage.md` §11, steps 1–5). */
export function planTextReply(transcript: TurnTranscript, options: TextReplyOptions): TextReplyPlan {
  const { text, ...rest } = composeTextReply(transcript, options);
  // Upstream converts Markdown tables (its table mode) before chunking; turnstream does not
  // convert them (yet), so a table reaches the gateway as the agent wrote it.
  return { chunks: splitMessage(text, options.limit), ...rest };
}

/** Steps 1–4 of the text path: the reply text and its directives, before table conversion and chunking. */
export function composeTextReply(
  transcript: TurnTranscript,
  options: Omit<TextReplyOptions, "limit">,
): TextReply {
  const { buffer, answerStart, reset, tools, agentError } = transcript;
  const { replyTo, delivery, body } = splitDelivery(buffer, answerStart, options.keepFullText);
  const finalized = finalizeBody(reset, options.keepFullText, answerStart, body);
  // Gateways are never OpenAB's ACP platform, so the tool summary always applies.
  const display = composeDisplay(tools, finalized, options.toolDisplay);
  // Upstream warns on every empty silent-failure turn, even when an agent error decides the text.
  // A turn whose reply is only files says nothing of its own: the files are the reply.
  const onlyFiles = display === "" && agentError === undefined && transcript.files.length > 0;
  const silentFailure = display === "" && !onlyFiles && isSilentFailure(transcript);
  return {
    text: onlyFiles ? "" : display === "" ? classifyEmptyTurn(transcript) : withErrorPrefix(agentError, display),
    ...(replyTo === undefined ? {} : { replyTo }),
    ...(delivery === undefined ? {} : { declaredSchema: delivery }),
    ...(silentFailure ? { silentFailure } : {}),
  };
}

/**
 * Directives come from the whole buffer (the header sits at the start of the output, which the
 * slice may drop); the header is stripped from the body only when the body starts at offset 0.
 * Mid-buffer `[[…]]` after a tool is content.
 */
export function splitDelivery(full: string, answerStart: number, keepFull: boolean): OutputDirectives {
  const { replyTo, delivery } = parseOutputDirectives(full);
  const delivered = selectDeliveryText(full, answerStart, keepFull);
  const body = answerStart === 0 || keepFull ? parseOutputDirectives(delivered).body : delivered;
  return {
    ...(replyTo === undefined ? {} : { replyTo }),
    ...(delivery === undefined ? {} : { delivery }),
    body,
  };
}

/** The text after the last tool, or the whole buffer when narration is kept or the offset is stale. */
export function selectDeliveryText(full: string, answerStart: number, keepFull: boolean): string {
  if (keepFull) return full;
  // Upstream falls back (with a warning) on an offset that is not a char boundary of the buffer.
  return isCharBoundary(full, answerStart) ? full.slice(answerStart) : full;
}

/** Re-adds the reset notice exactly when the delivered slice dropped it (a tool ran, send-once). */
export function finalizeBody(reset: boolean, keepFullText: boolean, answerStart: number, body: string): string {
  return reset && !keepFullText && answerStart > 0 ? SESSION_RESET_NOTICE + body : body;
}

/** What an empty reply becomes: the agent's error, the silent-failure diagnostic, or `_(no response)_`. */
export function classifyEmptyTurn(turn: Pick<TurnTranscript, "agentError" | "stopReason" | "usage">): string {
  if (turn.agentError !== undefined) return `⚠️ ${turn.agentError}`;
  return isSilentFailure(turn) ? SILENT_FAILURE_TEXT : NO_RESPONSE_TEXT;
}

/** `end_turn` with zero output tokens. Missing usage is not a failure: many agents omit it. */
export function isSilentFailure(turn: { readonly stopReason?: string; readonly usage?: TokenUsage }): boolean {
  return turn.stopReason === "end_turn" && turn.usage?.outputTokens === 0;
}

/** A non-empty reply after an agent error keeps what was said, flagged: `⚠️ <error>\n\n<reply>`. */
function withErrorPrefix(agentError: string | undefined, display: string): string {
  return agentError === undefined ? display : `⚠️ ${agentError}\n\n${display}`;
}

/** A slice offset inside `text` that does not split a surrogate pair. */
function isCharBoundary(text: string, offset: number): boolean {
  if (!Number.isInteger(offset) || offset < 0 || offset > text.length) return false;
  const splitsPair = isHighSurrogate(text.charCodeAt(offset - 1)) && isLowSurrogate(text.charCodeAt(offset));
  return !splitsPair;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
