import { Observable, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../agentEvent.js";
import { BlockChunker, type BlockChunkerSettings } from "./blockChunker.js";
import { parseOutputDirectives } from "../text/outputDirectives.js";
import { rustTrim } from "../text/rustWhitespace.js";
import { silentReply, type SilentReplyOptions } from "../text/silentReply.js";
import { emptyTranscript, reduceTranscript, SESSION_RESET_NOTICE, withAgentError, type TurnTranscript } from "../turnTranscript.js";

/**
 * When the chunker lets go of an assistant message's text (OpenClaw's block break modes):
 * `text_end` cuts blocks as the text is written and flushes what is left when the message ends;
 * `message_end` waits for the whole message, then cuts it.
 */
export type BlockBreak = "text_end" | "message_end";

export interface TextBlocksOptions {
  readonly chunker: BlockChunkerSettings;
  readonly break: BlockBreak;
  /** `[silent]`: the turn's last block is judged for a silent token; absent: never silent. */
  readonly silent?: SilentReplyOptions;
}

/** One step of a block-streamed text turn. */
export type TextBlockStep =
  /** A block to send now. `quote` is the `[[reply_to:…]]` target, on the turn's first block only. */
  | { readonly kind: "block"; readonly text: string; readonly quote?: string }
  /**
   * The turn ended. `streamed`: the reply went out as blocks — cut during the turn, or at its end
   * into more than one — and the last came just before this; otherwise nothing was cut before the
   * end and what is left is one block at most, and the caller delivers the whole transcript as a
   * text turn (so a short, silent, empty or failed reply reads as it always did).
   */
  | { readonly kind: "end"; readonly transcript: TurnTranscript; readonly streamed: boolean };

/**
 * A text turn as blocks while the agent writes it (OpenClaw's block streaming, `peers.md` §6.1):
 * each assistant message's text — chunks with one `messageId`, up to a tool call — goes through
 * `BlockChunker`, so a reply arriving in pieces is never sent mid-word (OpenClaw #31679); the
 * directive header is taken off the turn's first text, and a session reset notice heads it. Blocks
 * are only ever cut from text not sent before, and no final is sent after them (OpenClaw #70921):
 * the `end` step carries the transcript for the caller's bookkeeping. Pure: no clock.
 */
export function textBlocks(options: TextBlocksOptions): OperatorFunction<AgentEvent, TextBlockStep> {
  // One long-lived subscriber per turn: the state below is the turn's, read and written per event.
  return (events) =>
    new Observable<TextBlockStep>((subscriber) => {
      const turn = new BlockedTurn(options, (step) => subscriber.next(step));
      return events.subscribe({
        next: (event) => turn.event(event),
        error: (err: unknown) => {
          turn.end(err);
          subscriber.complete();
        },
        complete: () => {
          turn.end(undefined);
          subscriber.complete();
        },
      });
    });
}

/** One turn's text on its way to blocks. */
class BlockedTurn {
  readonly #options: TextBlocksOptions;
  readonly #emit: (step: TextBlockStep) => void;
  readonly #chunker: BlockChunker;
  #transcript = emptyTranscript();
  /** The turn's text before the directive header is known to be over; undefined once it is. */
  #header: string | undefined = "";
  #quote: string | undefined;
  /** `message_end`: the current message's text, cut when it ends. */
  #message = "";
  /** The current message's `messageId`, when the agent names its messages. */
  #messageId: string | undefined;
  #inMessage = false;
  #blocks = 0;

  constructor(options: TextBlocksOptions, emit: (step: TextBlockStep) => void) {
    this.#options = options;
    this.#emit = emit;
    this.#chunker = new BlockChunker(options.chunker);
  }

  event(event: AgentEvent): void {
    const wasReset = this.#transcript.reset;
    this.#transcript = reduceTranscript(this.#transcript, event);
    if (event.type === "session_reset" && this.#transcript.reset && !wasReset) {
      // Only ever first in the turn (reduceTranscript ignores a later one): the notice heads the reply.
      this.#write(SESSION_RESET_NOTICE);
    } else if (event.type === "text") {
      if (this.#inMessage && event.messageId !== this.#messageId) this.#messageEnded();
      this.#messageId = event.messageId;
      this.#inMessage = true;
      this.#text(event.text);
    } else if (event.type === "tool_start") {
      if (this.#inMessage) this.#messageEnded();
    }
  }

  end(err: unknown): void {
    if (err !== undefined) this.#transcript = withAgentError(this.#transcript, err);
    if (this.#transcript.stopReason === "cancelled") {
      this.#emit({ kind: "end", transcript: this.#transcript, streamed: this.#blocks > 0 });
      return;
    }
    const last = this.#cut();
    // Nothing cut before the end, and what is left is one block at most: a text turn's reply.
    const streamed = this.#blocks > 0 || last.filter((block) => rustTrim(block) !== "").length > 1;
    if (streamed) this.#lastBlocks(last);
    this.#emit({ kind: "end", transcript: this.#transcript, streamed });
  }

  /** Agent text: held while it may still be the directive header, then to the chunker. */
  #text(text: string): void {
    if (this.#header === undefined) {
      this.#write(text);
      return;
    }
    this.#header += text;
    // A header is a few short lines: past HEADER_MAX it is over, which keeps the rescans bounded.
    if (this.#header.length <= HEADER_MAX && headerOpen(this.#header)) return;
    const { replyTo, body } = parseOutputDirectives(this.#header);
    this.#quote = replyTo;
    this.#header = undefined;
    this.#write(body);
  }

  #write(text: string): void {
    if (this.#options.break === "message_end") this.#message += text;
    else this.#send(this.#chunker.push(text));
  }

  #messageEnded(): void {
    this.#inMessage = false;
    this.#send(this.#cut());
  }

  /** What the current message still holds, as blocks (the header too, when the text ended inside it). */
  #cut(): string[] {
    if (this.#header !== undefined && this.#header !== "") {
      const { replyTo, body } = parseOutputDirectives(this.#header);
      this.#quote = replyTo;
      this.#header = undefined;
      this.#write(body);
    }
    const held = this.#message;
    this.#message = "";
    return held === "" ? this.#chunker.flush() : [...this.#chunker.push(held), ...this.#chunker.flush()];
  }

  /** The turn's last blocks; its very last one judged for a silent token (`Done. NO_REPLY` → `Done.`). */
  #lastBlocks(blocks: string[]): void {
    const last = blocks.pop();
    if (last !== undefined && this.#options.silent !== undefined) {
      const outcome = silentReply(last, this.#options.silent);
      if (outcome.kind === "deliver" && rustTrim(outcome.text) !== "") blocks.push(outcome.text);
    } else if (last !== undefined) {
      blocks.push(last);
    }
    this.#send(blocks);
  }

  #send(blocks: readonly string[]): void {
    for (const block of blocks) {
      // A message's own leading or trailing blank space means nothing in a chat bubble.
      const text = rustTrim(block);
      if (text === "") continue;
      const quote = this.#blocks === 0 ? this.#quote : undefined;
      this.#blocks += 1;
      this.#emit(quote === undefined ? { kind: "block", text } : { kind: "block", text, quote });
    }
  }
}

/** Directive values are at most 64 characters: a real header fits many times over. */
const HEADER_MAX = 1024;

/**
 * Whether `text`, the turn's first text so far, may still be inside the directive header: every
 * finished line a directive with nothing after its `]]`, and the line being written still able to
 * become one.
 */
function headerOpen(text: string): boolean {
  let start = 0;
  for (;;) {
    const newline = text.indexOf("\n", start);
    const line = rustTrim(newline === -1 ? text.slice(start) : text.slice(start, newline));
    if (newline === -1) return "[[".startsWith(line) || (line.startsWith("[[") && !closedWithContent(line));
    if (!isDirectiveOnly(line)) return false;
    start = newline + 1;
  }
}

/** `[[key:value]]` and nothing after it. */
function isDirectiveOnly(line: string): boolean {
  if (!line.startsWith("[[")) return false;
  const close = line.indexOf("]]");
  return close !== -1 && line.slice(0, close).includes(":") && rustTrim(line.slice(close + 2)) === "";
}

/** A directive line that already has content after its `]]`, or a `[[…]]` that is no directive: the header is over. */
function closedWithContent(line: string): boolean {
  const close = line.indexOf("]]");
  if (close === -1) return false;
  return !line.slice(0, close).includes(":") || rustTrim(line.slice(close + 2)) !== "";
}
