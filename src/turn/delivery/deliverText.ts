import { concatMap, EMPTY, from, ignoreElements, type Observable } from "rxjs";
import { rustTrimEnd } from "../../../operators/delivery/text/rustWhitespace.js";
import { silentReply } from "../../../operators/delivery/text/silentReply.js";
import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import { composeTextReply, splitDelivery } from "../../../operators/delivery/text/textReply.js";
import { SESSION_RESET_NOTICE, type TurnTranscript } from "../../../operators/delivery/turnTranscript.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Config } from "../../config/index.js";
import type { TurnContext } from "../turn.js";
import { CANCELLED_TURN_LOG, SILENT_FAILURE_LOG, SILENT_REPLY_LOG } from "./deliveryLogMessages.js";
import { replyMessage } from "./replyMessage.js";
import { sendFile } from "./sendFile.js";
import { placeFiles, type ReplyPart } from "../../../operators/delivery/files/placeFiles.js";
import type { FileReadyEvent } from "../../../operators/delivery/agentEvent.js";

export type DeliveryConfig = Pick<Config, "delivery" | "reactions" | "silent">;

/**
 * OpenAB's text path: one reply split at the platform limit, sent one message after another.
 * With `[silent] enabled`, the agent's answer is checked for a silent token before chunking.
 */
export function deliverText(transcript: TurnTranscript, event: GatewayEvent, context: TurnContext, config: DeliveryConfig): Observable<never> {
  if (wasCancelled(transcript, context)) return EMPTY;
  const reply = finalTextReply(transcript, event, context, config, config.reactions.narration_display);
  // A silent reply still delivers the turn's files (OpenClaw's rule).
  if (reply === undefined) return sendFiles(transcript.files.map(({ file }) => file), event, context);
  if (transcript.files.length === 0) {
    return from(reply.chunks).pipe(
      concatMap((chunk, index) => context.send(replyMessage(event, chunk, index === 0 ? reply.replyTo : undefined))),
      ignoreElements(),
    );
  }
  // Each file after the text that preceded it: the reply is cut at the files.
  return sendReplyParts(placeFiles(reply.text, transcript.buffer, transcript.files), event, context, reply.replyTo);
}

/**
 * A reply cut at its files (`placeFiles`), in order: each run of text split at the platform limit,
 * each file one message; `quote` on the first text message only.
 */
export function sendReplyParts(parts: readonly ReplyPart<FileReadyEvent>[], event: GatewayEvent, context: TurnContext, quote: string | undefined): Observable<never> {
  const limit = context.messageLimit(event.platform);
  const messages = parts.flatMap((part): ReplyPart<FileReadyEvent>[] => (part.kind === "file" ? [part] : splitMessage(part.text, limit).map((text) => ({ kind: "text", text }))));
  let quoted = false;
  return from(messages).pipe(
    concatMap((message) => {
      if (message.kind === "file") return sendFile(context, event, message.file);
      const first = quoted ? undefined : quote;
      quoted = true;
      return context.send(replyMessage(event, message.text, first));
    }),
    ignoreElements(),
  );
}

/** Files alone, in order: a silent turn's, or those of a reply that was not text. */
export function sendFiles(files: readonly FileReadyEvent[], event: GatewayEvent, context: TurnContext): Observable<never> {
  if (files.length === 0) return EMPTY;
  return from(files).pipe(
    concatMap((file) => sendFile(context, event, file)),
    ignoreElements(),
  );
}

/**
 * A turn the agent ended `cancelled` (`/cancel`, or superseded under `[queue] mode = "interrupt"`)
 * delivers nothing more: once the cancel is acknowledged, what the agent had written so far is
 * not sent (logged). Bubbles a sequential turn already sent stay.
 */
export function wasCancelled(transcript: TurnTranscript, context: TurnContext): boolean {
  if (transcript.stopReason !== "cancelled") return false;
  context.logger.info({ reason: "cancelled" }, CANCELLED_TURN_LOG);
  return true;
}

/** A text turn's final reply as messages: the chunks in order and the first one's quote target. */
export interface FinalTextReply {
  /** The whole reply, before chunking. */
  readonly text: string;
  readonly chunks: readonly string[];
  readonly replyTo: string | undefined;
}

/**
 * The text path's final reply (`composeTextReply`, the silent tokens, then chunking at the
 * platform limit, with no table conversion as `planTextReply`), its warnings logged; undefined
 * when the reply is silent (logged too). `keepFullText`: the whole buffer, narration included
 * (`narration_display`, and always while streaming, as upstream).
 */
export function finalTextReply(transcript: TurnTranscript, event: GatewayEvent, context: TurnContext, config: DeliveryConfig, keepFullText: boolean): FinalTextReply | undefined {
  const reply = composeTextReply(transcript, { toolDisplay: config.reactions.tool_display, keepFullText });
  if (reply.silentFailure === true) context.logger.warn({ reason: "empty_turn" }, SILENT_FAILURE_LOG);
  warnOnDeclaredSchema(reply.declaredSchema, context, config);
  const text = config.silent.enabled ? applySilent(reply.text, transcript, event, config, keepFullText) : reply.text;
  if (typeof text !== "string") {
    context.logger.info({ reason: text.reason }, SILENT_REPLY_LOG);
    return undefined;
  }
  return { text, chunks: splitMessage(text, context.messageLimit(event.platform)), replyTo: reply.replyTo };
}

/**
 * The composed reply after silent-token handling, or the silence reason when nothing is sent.
 * Only the agent's own words are judged (never the tool summary, reset notice, agent error or
 * `_(no response)_`); they are always the tail of the composed text, so a stripped token is cut
 * there. A silent reply after an agent error still delivers the error.
 */
function applySilent(
  composed: string,
  transcript: TurnTranscript,
  event: GatewayEvent,
  config: DeliveryConfig,
  keepFullText: boolean,
): string | { readonly reason: "silent" | "nothing_to_report" } {
  const words = agentWords(transcript, keepFullText);
  const tail = rustTrimEnd(words);
  if (tail === "" || !composed.endsWith(tail)) return composed;
  const outcome = silentReply(words, {
    token: config.silent.token,
    reportToken: config.silent.report_token,
    proactive: event.proactive,
  });
  const head = composed.slice(0, composed.length - tail.length);
  if (outcome.kind === "deliver") return outcome.text === words ? composed : head + rustTrimEnd(outcome.text);
  return transcript.agentError === undefined ? { reason: outcome.reason } : rustTrimEnd(head);
}

/** The answer body the text path delivers, without its directive header and the reset notice. */
function agentWords(transcript: TurnTranscript, keepFull: boolean): string {
  const { body } = splitDelivery(transcript.buffer, transcript.answerStart, keepFull);
  return transcript.reset && body.startsWith(SESSION_RESET_NOTICE) ? body.slice(SESSION_RESET_NOTICE.length) : body;
}

/** `[[delivery:…]]` is a per-turn declaration: a mismatch is worth a warning, not a refusal. */
export function warnOnDeclaredSchema(declared: string | undefined, context: TurnContext, config: DeliveryConfig): void {
  if (declared !== undefined && declared !== config.delivery.schema) {
    context.logger.warn({ declared, configured: config.delivery.schema }, "turn declared a delivery schema this deployment does not serve");
  }
}
