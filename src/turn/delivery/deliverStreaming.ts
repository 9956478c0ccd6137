import { catchError, concat, defer, EMPTY, ignoreElements, tap, throwError, type Observable, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import { concatLatest } from "../../../operators/delivery/status/concatLatest.js";
import { markedChunks, markedPreview } from "../../../operators/delivery/status/markedMessage.js";
import { streamingEdits, type StreamingStep } from "../../../operators/delivery/status/streamingEdits.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { SendError } from "../../wire/index.js";
import type { TurnContext } from "../turn.js";
import { finalTextReply, sendFiles, sendReplyParts, wasCancelled, type DeliveryConfig } from "./deliverText.js";
import { placeFiles } from "../../../operators/delivery/files/placeFiles.js";
import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import type { TurnTranscript } from "../../../operators/delivery/turnTranscript.js";
import { messageChange, namesMessage } from "./messageChange.js";
import { replyMessage } from "./replyMessage.js";

export interface StreamingOptions {
  /** Post `…` at once; otherwise the message opens with the first text. */
  readonly placeholder: boolean;
  /**
   * Whether a platform with no capabilities (a gateway without a hello) streams, as upstream does
   * under `[gateway] streaming`; default true. False where only a native platform streams
   * (`[telegram] streaming`): its capabilities say so, and a gateway platform is sent once.
   */
  readonly withoutHello?: boolean;
}

/**
 * OpenAB's streaming text path (`[gateway] streaming = true`): one message shows the reply as it
 * is written (`streamingEdits`: the placeholder, an edit at most every 1.5 s, only the newest edit
 * waiting while one is in flight), and when the turn ends it is edited to the final reply's first
 * chunk and the rest follow as new messages, in order. Nothing is lost on the way: when the
 * message could not be posted, never got an id, or an edit failed, the final reply goes out as
 * new messages (after deleting the stale one, best effort). A silent reply deletes it.
 *
 * The message is posted as a `placeholder`, so the delivery ledger keeps its id for a re-run should
 * this worker die. When the post came back marked (a recovered re-run's `SendReceipt.marker`),
 * every edit writes the marker again above the text, the final one included.
 */
export function deliverStreaming(event: GatewayEvent, context: TurnContext, config: DeliveryConfig, options: StreamingOptions): OperatorFunction<AgentEvent, never> {
  return (events) =>
    defer(() => {
      const reply = new StreamedReply(event, context, config);
      return events.pipe(
        streamingEdits({ placeholder: options.placeholder, toolDisplay: config.reactions.tool_display, limit: context.messageLimit(event.platform), scheduler: context.scheduler }),
        concatLatest((step) => reply.step(step), isEdit),
        ignoreElements(),
      );
    });
}

const isEdit = (step: StreamingStep): boolean => step.kind === "edit";

/** One streamed reply: the message it edits and whether that message can still be trusted. */
class StreamedReply {
  readonly #event: GatewayEvent;
  readonly #context: TurnContext;
  readonly #config: DeliveryConfig;
  /** The streaming message, once posted and named by its ack. */
  #messageId: string | undefined;
  /** The message could not be posted or an edit failed: the final reply goes out fresh. */
  #broken = false;
  /** The marker the message was posted with, kept on every edit of it. */
  #marker: string | undefined;

  constructor(event: GatewayEvent, context: TurnContext, config: DeliveryConfig) {
    this.#event = event;
    this.#context = context;
    this.#config = config;
  }

  step(step: StreamingStep): Observable<unknown> {
    switch (step.kind) {
      case "open":
        return this.#open(step.text);
      case "edit":
        return this.#messageId === undefined || this.#broken ? EMPTY : this.#edit(this.#messageId, this.#shown(step.text));
      case "final":
        return defer(() =>
          // Cancelled: what was shown so far goes, and nothing more is sent.
          wasCancelled(step.transcript, this.#context) ? this.#final(undefined) : this.#withFiles(step.transcript, finalTextReply(step.transcript, this.#event, this.#context, this.#config, true)),
        );
    }
  }

  #open(text: string): Observable<unknown> {
    return this.#context.send(replyMessage(this.#event, text, undefined), { placeholder: true }).pipe(
      tap((receipt) => {
        this.#marker = receipt.marker;
        if (namesMessage(receipt.messageId)) this.#messageId = receipt.messageId;
        else this.#fallBack("no_message_id");
      }),
      catchError((err: unknown) => this.#failed(err, "stream_open_failed")),
    );
  }

  /** What an edit shows of the text so far: under the marker, when the message has one. */
  #shown(text: string): string {
    return this.#marker === undefined ? text : markedPreview(this.#marker, text, this.#context.messageLimit(this.#event.platform));
  }

  #edit(messageId: string, text: string): Observable<unknown> {
    return this.#context.send(messageChange(this.#event, messageId, text)).pipe(catchError((err: unknown) => this.#failed(err, "stream_edit_failed")));
  }

  /**
   * The final reply with the turn's files, each after the text that preceded it: the streamed
   * message ends as the text before the first file (deleted when there is none), and the files
   * and the text after them follow as messages of their own. A silent reply: the files alone.
   */
  #withFiles(transcript: TurnTranscript, reply: ReturnType<typeof finalTextReply>): Observable<unknown> {
    const { files } = transcript;
    if (files.length === 0) return this.#final(reply);
    if (reply === undefined) return concat(this.#final(undefined), sendFiles(files.map(({ file }) => file), this.#event, this.#context));
    const parts = placeFiles(reply.text, transcript.buffer, files);
    const [head] = parts;
    if (head === undefined || head.kind === "file") return concat(this.#final(undefined), sendReplyParts(parts, this.#event, this.#context, reply.replyTo));
    const shown = { ...reply, text: head.text, chunks: splitMessage(head.text, this.#context.messageLimit(this.#event.platform)) };
    return concat(this.#final(shown), sendReplyParts(parts.slice(1), this.#event, this.#context, undefined));
  }

  #final(reply: ReturnType<typeof finalTextReply>): Observable<unknown> {
    const messageId = this.#messageId;
    if (reply === undefined) return messageId === undefined ? EMPTY : this.#delete(messageId);
    const sendAll = (chunks: readonly string[], quote: string | undefined): Observable<unknown> =>
      concat(...chunks.map((chunk, index) => defer(() => this.#context.send(replyMessage(this.#event, chunk, index === 0 ? quote : undefined)))));
    // No message to edit: the marker, if any, is on the one that named no id (it stays), or on the first sent now.
    if (messageId === undefined) return sendAll(reply.chunks, reply.replyTo);
    // The marked message is edited or deleted: the marker moves with its text.
    const chunks = this.#marker === undefined ? reply.chunks : markedChunks(this.#marker, reply.chunks, this.#context.messageLimit(this.#event.platform));
    if (this.#broken) return concat(this.#delete(messageId), sendAll(chunks, reply.replyTo));
    const [first = "", ...rest] = chunks;
    return concat(
      this.#edit(messageId, first),
      defer(() => (this.#broken ? concat(this.#delete(messageId), sendAll(chunks, reply.replyTo)) : sendAll(rest, undefined))),
    );
  }

  /** Best effort: a message that stays is untidy, never a failure of the turn. */
  #delete(messageId: string): Observable<unknown> {
    return this.#context.send(messageChange(this.#event, messageId, undefined)).pipe(
      catchError((err: unknown) => {
        if (!(err instanceof SendError)) return throwError(() => err);
        this.#context.logger.debug({ reason: "stream_delete_failed", code: err.code }, "streaming message not deleted");
        return EMPTY;
      }),
    );
  }

  /** A gateway failure marks the stream broken (the final reply then goes out fresh); anything else is the turn's failure. */
  #failed(err: unknown, reason: string): Observable<never> {
    if (!(err instanceof SendError)) return throwError(() => err);
    this.#context.logger.warn({ reason, code: err.code }, "streaming edit failed; the final reply will be sent as new messages");
    this.#broken = true;
    return EMPTY;
  }

  #fallBack(reason: string): void {
    this.#context.logger.warn({ reason }, "streaming message has no id; the final reply will be sent as new messages");
    this.#broken = true;
  }
}
