import type { TurnNext } from "./envelopeShape.js";
import { rustTrim } from "../text/rustWhitespace.js";
import { splitMessage } from "../text/splitMessage.js";
import { findEnvelopeSpan } from "./findEnvelopeSpan.js";
import { planStructuredBubbles, type ParseFailure, type StructuredOptions, type ToolProposal } from "./structuredBubbles.js";
import { splitDelivery } from "../text/textReply.js";
import { SESSION_RESET_NOTICE, type TurnTranscript } from "../turnTranscript.js";

/** The reset notice as a bubble of its own: without the blank line that joins it to text. */
export const RESET_NOTICE_BUBBLE = rustTrim(SESSION_RESET_NOTICE);

/** A finished structured turn's reply, before chunking (`delivery-and-triage.md` §8, steps 1–3). */
export interface StructuredReplyPlan {
  /** In order; the reset notice, when due, is bubble 0 and counts in `total`. Empty: send nothing. */
  readonly bubbles: string[];
  /** Nothing to send: a silent envelope, or the `silent` parse-error policy. The turn is still Ok. */
  readonly silent: boolean;
  /** From `[[reply_to:…]]`: only the turn's very first message quotes it. */
  readonly replyTo?: string;
  /** From `[[delivery:…]]`; the caller warns when it differs from `[delivery] schema` (§8.1). */
  readonly declaredSchema?: string;
  readonly next?: TurnNext;
  /** Logged by the caller (fields `error`, `policy`). */
  readonly parseFailure?: ParseFailure;
  /** Logged by the caller (field `tool`); never executed. */
  readonly toolProposal?: ToolProposal;
  /** Bubbles a silent envelope declared (the caller warns, field `bubbles`). */
  readonly silenced?: number;
  /**
   * The reply came from the `reply` tool (`transcript.toolEnvelope`); `"over_envelope"` when the
   * turn's text held an envelope too (well-formed or not), which the tool's reply won over (the
   * caller logs it).
   */
  readonly fromTool?: "tool" | "over_envelope";
  /**
   * The agent's error: the caller delivers the bubbles, then fails the turn with it (§12 (e)). A
   * turn that said nothing before the error already shows it as `⚠️ <error>`.
   */
  readonly agentError?: string;
}

/**
 * Plans a structured turn from its transcript: the directive header as the text path reads it
 * (`[[…]]` from the whole buffer, stripped from the body only when no tool ran), the body after
 * the last tool (narration is never kept in bubble modes), parsed before the text path would
 * prepend the reset notice or a tool summary (§8.2). The reset notice becomes its own leading
 * bubble whether or not the body still held it, and only when something is sent.
 *
 * turnstream, not upstream (§12 (e)): an agent error still delivers what the policy makes of the
 * partial output, then fails the turn; a turn with no output besides the error shows the text
 * path's `⚠️ <error>` instead of `parse_error_text`.
 */
export function planStructuredReply(transcript: TurnTranscript, options: StructuredOptions): StructuredReplyPlan {
  if (transcript.toolEnvelope !== undefined) return planToolReply(transcript, transcript.toolEnvelope, options);
  const { replyTo, delivery, body: delivered } = splitDelivery(transcript.buffer, transcript.answerStart, false);
  // The notice is handled in one place only: the leading bubble below.
  const body = delivered.startsWith(SESSION_RESET_NOTICE) ? delivered.slice(SESSION_RESET_NOTICE.length) : delivered;
  const { agentError } = transcript;
  const shared = {
    ...(replyTo === undefined ? {} : { replyTo }),
    ...(delivery === undefined ? {} : { declaredSchema: delivery }),
    ...(agentError === undefined ? {} : { agentError }),
  };

  if (agentError !== undefined && rustTrim(body) === "") {
    return { bubbles: withResetNotice(transcript.reset, [`⚠️ ${agentError}`]), silent: false, ...shared };
  }

  const plan = planStructuredBubbles(body, options);
  const logged = {
    ...(plan.next === undefined ? {} : { next: plan.next }),
    ...(plan.parseFailure === undefined ? {} : { parseFailure: plan.parseFailure }),
  };
  if (plan.kind === "nothing") {
    return { bubbles: [], silent: true, ...shared, ...logged, ...(plan.silenced === undefined ? {} : { silenced: plan.silenced }) };
  }
  return {
    bubbles: withResetNotice(transcript.reset, plan.bubbles),
    silent: false,
    ...shared,
    ...logged,
    ...(plan.toolProposal === undefined ? {} : { toolProposal: plan.toolProposal }),
  };
}

/**
 * A turn that called the `reply` tool: its envelope is planned exactly as a parsed envelope in the
 * text would be (silence wins, the limits and ids apply, the reset notice leads), and the turn's
 * text — directives included — is not delivered. An agent error after the call fails the turn
 * once the reply is out, as after an envelope in the text.
 */
function planToolReply(transcript: TurnTranscript, envelope: string, options: StructuredOptions): StructuredReplyPlan {
  const textHadEnvelope = findEnvelopeSpan(transcript.buffer, options.schema) !== undefined;
  const shared = {
    fromTool: textHadEnvelope ? ("over_envelope" as const) : ("tool" as const),
    ...(transcript.agentError === undefined ? {} : { agentError: transcript.agentError }),
  };
  const plan = planStructuredBubbles(envelope, options);
  const next = plan.next === undefined ? {} : { next: plan.next };
  const parseFailure = plan.parseFailure === undefined ? {} : { parseFailure: plan.parseFailure };
  if (plan.kind === "nothing") {
    return { bubbles: [], silent: true, ...shared, ...next, ...parseFailure, ...(plan.silenced === undefined ? {} : { silenced: plan.silenced }) };
  }
  return { bubbles: withResetNotice(transcript.reset, plan.bubbles), silent: false, ...shared, ...next, ...parseFailure };
}

/** One message of a structured reply: a chunk of bubble `bubble` (0-based, counting the reset notice). */
export interface BubbleMessage {
  readonly bubble: number;
  readonly text: string;
  /** Set on the turn's very first message only. */
  readonly replyTo?: string;
}

/**
 * The messages of a planned reply, in send order (§8 step 4): each bubble chunked at the platform
 * limit in place, blank chunks skipped, `reply_to` on the first message only. Pacing applies
 * between bubbles, never between chunks of one bubble.
 */
export function bubbleMessages(plan: Pick<StructuredReplyPlan, "bubbles" | "replyTo">, limit: number): BubbleMessage[] {
  const messages: BubbleMessage[] = [];
  for (const [bubble, text] of plan.bubbles.entries()) {
    for (const chunk of splitMessage(text, limit)) {
      if (rustTrim(chunk) === "") continue;
      const quote = messages.length === 0 && plan.replyTo !== undefined ? { replyTo: plan.replyTo } : {};
      messages.push({ bubble, text: chunk, ...quote });
    }
  }
  return messages;
}

/** The error of a structured turn whose bubble `delivered` (0-based) failed to send, of `total`. */
export function structuredDeliveryIncomplete(delivered: number, total: number): string {
  return `structured delivery incomplete: ${delivered}/${total} bubbles delivered`;
}

function withResetNotice(reset: boolean, bubbles: string[]): string[] {
  return reset ? [RESET_NOTICE_BUBBLE, ...bubbles] : bubbles;
}
