import {
  asyncScheduler,
  catchError,
  concat,
  concatMap,
  connect,
  defer,
  EMPTY,
  finalize,
  from,
  ignoreElements,
  merge,
  of,
  tap,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from "rxjs";
import type { AgentEvent, FileReadyEvent, ReplyBubblesEvent } from "../agentEvent.js";
import { collectTranscript } from "../collectTranscript.js";
import { parseOutputDirectives } from "../text/outputDirectives.js";
import { paceBubbles } from "../flow/paceBubbles.js";
import { rustTrim } from "../text/rustWhitespace.js";
import { splitMessage } from "../text/splitMessage.js";
import { emptyTranscript, reduceTranscript, type TurnTranscript } from "../turnTranscript.js";
import type { SendReceipt } from "../outboundMessage.js";

export interface SequentialBubblesOptions {
  /**
   * Sends one message and completes when the gateway acked it (an error fails the send). Called
   * once per message: a bubble longer than `limit` is several messages, sent one after another.
   * `index` is the bubble's 0-based position among the turn's accepted (non-blank, under the cap)
   * bubbles, the same for every message of one bubble; `quote` is the `[[reply_to:…]]` target, set on the turn's very first
   * message only. `departing`: call it when the message actually leaves (after a rate limit held
   * it, say), so the next bubble is paced from then; otherwise its request counts.
   */
  readonly sendBubble: (text: string, index: number, quote: string | undefined, departing: () => void) => Observable<SendReceipt>;
  /**
   * `[delivery] bubble_delay_ms`: bubble N+1 leaves this long after bubble N's departure (never
   * before its ack); a function of the bubble's index gives each gap (`[delivery] human_delay`).
   */
  readonly delayMs: number | ((index: number) => number);
  /** `[delivery] max_bubbles`, per turn (an integer ≥ 1, or `Infinity`). */
  readonly maxBubbles: number;
  /** The platform's message limit in chars (Unicode scalar values); an integer ≥ 1. */
  readonly limit: number;
  readonly scheduler?: SchedulerLike;
  /**
   * Sends one of the turn's files (`file_ready`) and completes when it was acked. Given, a file
   * goes in the bubbles' paced sequence, after the bubble it followed; one that came before the
   * first bubble waits for it and goes just before it. Files of a turn with no bubble at all are
   * never sent here: the text path places them in the text (`SequentialReport.filesSent` 0).
   * Absent: files are left to the caller.
   */
  readonly sendFile?: (file: FileReadyEvent, departing: () => void) => Observable<SendReceipt>;
}

/** What a sequential turn delivered, emitted once when the turn's events and all sends are done. */
export interface SequentialReport {
  /** Bubbles whose every message was acked. */
  readonly bubblesSent: number;
  /** The turn reached `max_bubbles` and later bubbles were dropped (configuration working, not a fault). */
  readonly capped: boolean;
  /** How many non-blank bubbles the cap dropped. */
  readonly dropped: number;
  /** The first bubble the cap dropped (its `id`, `""` when the agent gave none): the warning's `bubble` field. */
  readonly firstDroppedId?: string;
  /** Why the first failed send failed; later bubbles were not sent. Set only with `failedBubbleId`. */
  readonly sendError?: unknown;
  /** The bubble whose send failed (its `id`, `""` when the agent gave none); present iff a send failed. */
  readonly failedBubbleId?: string;
  /**
   * The turn folded as text mode folds it (`collectTranscript`): the text path's input when no
   * bubble was attempted, and `agentError` when the turn ended in an error.
   */
  readonly transcript: TurnTranscript;
  /** Files sent in the sequence (`sendFile`), acked. */
  readonly filesSent: number;
}

/** A bubble accepted for sending. */
interface Bubble {
  readonly id: string;
  readonly index: number;
  readonly text: string;
  readonly quote: string | undefined;
  /** The `reply` call it came from. */
  readonly call?: ReplyCall;
  /** A file in the sequence instead of text: sent with `sendFile`, counted in no cap. */
  readonly file?: FileReadyEvent;
}

/** The bubble id of a `reply` tool message, in logs and in `failedBubbleId`. */
export const REPLY_TOOL_BUBBLE_ID = "reply_tool";

/** One `reply` call's accepted messages, until every one was acked (or a send failed): then it settles once. */
class ReplyCall {
  accepted = 0;
  dropped = 0;
  delivered = 0;
  #settled = false;

  constructor(readonly event: ReplyBubblesEvent) {}

  /** One of its messages was acked; settles with the last. */
  sent(): void {
    this.delivered += 1;
    if (this.delivered === this.accepted) this.settle(false);
  }

  settle(failed: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.event.settle({ delivered: this.delivered, dropped: this.dropped, failed });
  }
}

/**
 * Sequential delivery (`delivery-and-triage.md` §9.2, with turnstream's fixes of §12): consumes one
 * turn's events in wire order, subscribing once, and sends each `openab_message` with non-blank
 * text as soon as it arrives — not at turn end — paced by `paceBubbles` (`delayMs` after the
 * previous bubble's last part left, never before its ack). Each bubble is split in place by
 * `splitMessage` at `limit`; its messages go out back to back and its ack is the last one's. The cap counts bubbles over the whole turn:
 * once `maxBubbles` were accepted, later ones are dropped and the turn is `capped`. A failed send
 * abandons the rest of the turn (`sendError`); an agent error ends the intake but bubbles already
 * received are still sent. Emits exactly one `SequentialReport` after the events ended and every
 * pending send settled, then completes. The output never errors: a `sendBubble` that throws counts
 * as a failed send.
 */
export function sequentialBubbles(options: SequentialBubblesOptions): OperatorFunction<AgentEvent, SequentialReport> {
  const { sendBubble, sendFile, delayMs, maxBubbles, limit, scheduler = asyncScheduler } = options;
  if (!(maxBubbles === Infinity || (Number.isInteger(maxBubbles) && maxBubbles >= 1))) {
    throw new RangeError(`sequentialBubbles maxBubbles must be an integer >= 1 or Infinity, got ${maxBubbles}`);
  }
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`sequentialBubbles limit must be an integer >= 1, got ${limit}`);
  }

  return (events) =>
    defer(() => {
      // Per turn (per subscription).
      let received = emptyTranscript();
      let accepted = 0;
      let dropped = 0;
      let firstDroppedId: string | undefined;
      let sending: Bubble | undefined;
      let failure: { readonly bubbleId: string; readonly sentBefore: number; readonly error: unknown } | undefined;
      let transcript = emptyTranscript();
      let filesSent = 0;
      /** Files that came before the turn's first bubble: they go just before it, or to the text path if none comes. */
      let heldFiles: Bubble[] = [];
      /** `reply` calls with messages not yet acked. */
      const openCalls = new Set<ReplyCall>();
      /** Every `reply` call the sends took in; one that arrives after a failed send never gets there. */
      const takenCalls = new Set<ReplyBubblesEvent>();

      /** The bubble for this text, or `undefined` (blank, or over the cap: counted as dropped). */
      const acceptText = (id: string, text: string, call?: ReplyCall): Bubble | undefined => {
        if (rustTrim(text) === "") return undefined;
        if (accepted >= maxBubbles) {
          dropped += 1;
          firstDroppedId ??= id;
          if (call !== undefined) call.dropped += 1;
          return undefined;
        }
        const index = accepted++;
        // Only the turn's first message may quote: the header from the text received before it.
        const quote = index === 0 ? parseOutputDirectives(received.buffer).replyTo : undefined;
        if (call !== undefined) call.accepted += 1;
        return call === undefined ? { id, index, text, quote } : { id, index, text, quote, call };
      };

      /** The bubbles, with the files held for the first of them before it. */
      const withHeldFiles = (bubbles: Bubble[]): Observable<Bubble> => {
        if (bubbles.length === 0) return EMPTY;
        const held = heldFiles;
        heldFiles = [];
        return from(held.length === 0 ? bubbles : [...held, ...bubbles]);
      };

      /** The bubbles to send for this event: none, one (`openab_message`), a `reply` call's, or a file. */
      const accept = (event: AgentEvent): Observable<Bubble> => {
        // The text so far, folded as the text path folds it (a reset notice heads it, as there).
        received = reduceTranscript(received, event);
        if (event.type === "file_ready" && sendFile !== undefined) {
          const file: Bubble = { id: "file", index: accepted, text: "", quote: undefined, file: event };
          if (accepted === 0) {
            heldFiles.push(file);
            return EMPTY;
          }
          return of(file);
        }
        if (event.type === "openab_message") {
          const bubble = acceptText(event.id, event.text);
          return bubble === undefined ? EMPTY : withHeldFiles([bubble]);
        }
        if (event.type !== "reply_bubbles") return EMPTY;
        takenCalls.add(event);
        const call = new ReplyCall(event);
        const bubbles: Bubble[] = [];
        for (const text of event.messages) {
          const bubble = acceptText(REPLY_TOOL_BUBBLE_ID, text, call);
          if (bubble !== undefined) bubbles.push(bubble);
        }
        // Nothing of it will be sent (blank, or all over the cap): it settles now.
        if (call.accepted === 0) call.settle(false);
        else openCalls.add(call);
        return withHeldFiles(bubbles);
      };

      /** A `reply` message was acked: its call settles once all of its messages were. */
      const acked = (bubble: Bubble): void => {
        const { call } = bubble;
        if (call === undefined) return;
        call.sent();
        if (call.delivered === call.accepted) openCalls.delete(call);
      };

      /** Calls whose messages will never all be sent (a send failed, or the stream ended first) settle with what went out. */
      const settleOpenCalls = (failed: boolean): void => {
        for (const call of openCalls) call.settle(failed);
        openCalls.clear();
      };

      /**
       * Every non-blank part of the bubble, one after another; completes at the last part's ack.
       * Called as the bubble departs (paceBubbles), which is when it becomes `sending`.
       */
      const sendParts = (bubble: Bubble, _index: number, departing: () => void): Observable<SendReceipt> => {
        sending = bubble;
        if (bubble.file !== undefined && sendFile !== undefined) return sendFile(bubble.file, departing).pipe(tap({ complete: () => (filesSent += 1) }));
        const [first, ...rest] = splitMessage(bubble.text, limit).filter((part) => rustTrim(part) !== "");
        if (first === undefined) return EMPTY;
        const sent = sendBubble(first, bubble.index, bubble.quote, departing);
        const parts =
          rest.length === 0
            ? sent
            : concat(
                sent,
                ...rest.map((part) =>
                  defer(() => {
                    departing(); // the next bubble is paced from the last part the user saw
                    return sendBubble(part, bubble.index, undefined, departing);
                  }),
                ),
              );
        return bubble.call === undefined ? parts : parts.pipe(tap({ complete: () => acked(bubble) }));
      };

      const report = (): SequentialReport => ({
        // Bubbles leave one at a time in the order accepted and a failure abandons the rest, so
        // without a failure every accepted bubble was sent (counted here, not per bubble).
        bubblesSent: failure === undefined ? accepted : failure.sentBefore,
        capped: dropped > 0,
        dropped,
        ...(firstDroppedId === undefined ? {} : { firstDroppedId }),
        ...(failure === undefined ? {} : { sendError: failure.error, failedBubbleId: failure.bubbleId }),
        transcript,
        filesSent,
      });

      return events.pipe(
        connect((turn) => {
          const sends = turn.pipe(
            // The agent's error ends the intake only; collectTranscript records it.
            catchError(() => EMPTY),
            concatMap(accept),
            paceBubbles(sendParts, delayMs, scheduler),
            catchError((error: unknown) => {
              // Only a send fails here: `sending` is in flight, and the bubbles before it were all acked.
              failure = { bubbleId: sending?.id ?? "", sentBefore: sending?.index ?? 0, error };
              settleOpenCalls(true);
              return EMPTY;
            }),
            finalize(() => settleOpenCalls(false)),
          );
          const folded = turn.pipe(
            collectTranscript(),
            tap((folded) => (transcript = folded)),
          );
          // After a failed send the sends take nothing more: a call arriving then is answered at once, sent nothing.
          const refusedAfterFailure = turn.pipe(
            catchError(() => EMPTY),
            tap((event) => {
              if (event.type === "reply_bubbles" && failure !== undefined && !takenCalls.has(event)) event.settle({ delivered: 0, dropped: 0, failed: true });
            }),
          );
          return concat(merge(sends, folded, refusedAfterFailure).pipe(ignoreElements()), defer(() => of(report())));
        }),
      );
    });
}
