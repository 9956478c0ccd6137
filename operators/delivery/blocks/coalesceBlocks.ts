import { asyncScheduler, Observable, type MonoTypeOperatorFunction, type SchedulerLike, type Subscription } from "rxjs";
import { charCount } from "../text/graphemes.js";
import { startsMarkdownBlock } from "../text/responsePrefix.js";

/** What joins two coalesced blocks: a blank line, a line break or a space. */
export type BlockJoiner = "\n\n" | "\n" | " ";

export interface CoalesceOptions {
  /** How long without a new block before what is held may leave (0–5000; 0: never on idle). */
  readonly idleMs: number;
  /** An idle flush sends only a buffer at least this long. */
  readonly minChars: number;
  /** No coalesced message is longer than this; a lone block at or over it is sent as it is. */
  readonly maxChars: number;
  readonly joiner: BlockJoiner;
  readonly scheduler?: SchedulerLike;
}

/**
 * Joins blocks that come close together into one message (OpenClaw's block reply coalescer,
 * peers.md §6.2). Each block is appended with `joiner`; when that would pass `maxChars`, what is
 * held leaves first and the block starts a new message — or leaves on its own at once when it
 * alone is `maxChars` or more. A message that reaches `maxChars` leaves at once; otherwise it
 * leaves `idleMs` after the last block if it holds `minChars` by then, else it waits for the next
 * block. The source's end sends whatever is held, and so does its error, right before the error:
 * nothing the agent wrote is lost. Lengths are in chars (Unicode scalar values), as platform
 * limits are; a block of only whitespace is no message and is dropped. With `idleMs` 0 nothing
 * leaves on idle, as in OpenClaw: only size and the end flush. The joiner " " becomes a line break
 * where a space would unmake Markdown: after a code fence's closing line (text after it on the line
 * leaves the fence open) and before a block that starts one (`🤖 ```ts` opens no fence).
 *
 * @throws {RangeError} when `maxChars` is not an integer ≥ 1 or `idleMs` is negative.
 */
export function coalesceBlocks(options: CoalesceOptions): MonoTypeOperatorFunction<string> {
  const { idleMs, minChars, maxChars, joiner, scheduler = asyncScheduler } = options;
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`coalesceBlocks maxChars must be an integer >= 1, got ${maxChars}`);
  if (!(idleMs >= 0)) throw new RangeError(`coalesceBlocks idleMs must be >= 0, got ${idleMs}`);
  const joinerChars = joiner.length;
  // A custom subscriber: an idle timer re-armed by each block, whose firing flushes only on the
  // buffer's size, beside size flushes and a flush before the error, is one piece of shared state.
  return (blocks) =>
    new Observable<string>((subscriber) => {
      let buffer = "";
      let bufferChars = 0;
      /** Whether the buffer's last line is a fence line: nothing may follow it on that line. */
      let endsInFence = false;
      let idle: Subscription | undefined;
      const flush = (): void => {
        idle?.unsubscribe();
        idle = undefined;
        if (buffer === "") return;
        const text = buffer;
        buffer = "";
        bufferChars = 0;
        subscriber.next(text);
      };
      const onIdle = (): void => {
        idle = undefined;
        // Below minChars it keeps waiting: the next block re-arms, the end flushes.
        if (bufferChars >= minChars) flush();
      };
      const source = blocks.subscribe({
        next: (block) => {
          if (block.trim() === "") return;
          const chars = charCount(block);
          if (buffer !== "" && bufferChars + joinerChars + chars > maxChars) flush();
          if (buffer === "") {
            if (chars >= maxChars) {
              subscriber.next(block);
              return;
            }
            buffer = block;
            bufferChars = chars;
          } else {
            buffer += joiner === " " && (endsInFence || startsMarkdownBlock(block)) ? "\n" : joiner;
            buffer += block;
            bufferChars += joinerChars + chars;
          }
          endsInFence = lastLineIsFence(block);
          if (bufferChars >= maxChars) {
            flush();
            return;
          }
          idle?.unsubscribe();
          // A subscriber that left within a flush above wants no timer.
          idle = idleMs > 0 && !subscriber.closed ? scheduler.schedule(onIdle, idleMs) : undefined;
        },
        error: (err: unknown) => {
          flush();
          subscriber.error(err);
        },
        complete: () => {
          flush();
          subscriber.complete();
        },
      });
      return () => {
        idle?.unsubscribe();
        source.unsubscribe();
      };
    });
}

/** A code fence's opening or closing line (CommonMark: up to three spaces, then ``` or ~~~), read where it starts. */
const FENCE_LINE = / {0,3}(?:```|~~~)/y;

/** Whether the block's last line is a fence line; reads that line's first few chars only. */
function lastLineIsFence(block: string): boolean {
  FENCE_LINE.lastIndex = block.lastIndexOf("\n") + 1;
  return FENCE_LINE.test(block);
}

/** OpenClaw's joiner for a chunker break preference: paragraph → "\n\n", newline → "\n", sentence → " ". */
export function coalesceJoiner(preference: "paragraph" | "newline" | "sentence"): BlockJoiner {
  switch (preference) {
    case "paragraph":
      return "\n\n";
    case "newline":
      return "\n";
    case "sentence":
      return " ";
  }
}
