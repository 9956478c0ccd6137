import { StringDecoder } from "node:string_decoder";

export type SplitResult = { readonly kind: "line"; readonly line: string } | { readonly kind: "oversized"; readonly bytes: number };

/**
 * Splits a byte stream into `\n`-terminated lines (a trailing `\r` is removed), decoding UTF-8
 * across chunk boundaries. A line longer than `maxLineBytes` is discarded whole and reported, so a
 * runaway writer cannot grow the buffer without bound.
 */
export class LineSplitter {
  readonly #decoder = new StringDecoder("utf8");
  readonly #maxLineBytes: number;
  #partial = "";
  #partialBytes = 0;
  #discarding = false;
  #discardedBytes = 0;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  push(chunk: Buffer): SplitResult[] {
    const results: SplitResult[] = [];
    let text = this.#decoder.write(chunk);
    for (;;) {
      const newline = text.indexOf("\n");
      const piece = newline === -1 ? text : text.slice(0, newline);
      this.#append(piece);
      if (newline === -1) break;
      results.push(this.#finishLine());
      text = text.slice(newline + 1);
    }
    return results;
  }

  /** Whatever is left when the stream ends without a final newline. */
  end(): SplitResult | undefined {
    this.#append(this.#decoder.end());
    if (this.#partial === "" && !this.#discarding) return undefined;
    return this.#finishLine();
  }

  #append(piece: string): void {
    if (piece === "") return;
    const bytes = Buffer.byteLength(piece);
    if (this.#discarding) {
      this.#discardedBytes += bytes;
      return;
    }
    if (this.#partialBytes + bytes > this.#maxLineBytes) {
      this.#discarding = true;
      this.#discardedBytes = this.#partialBytes + bytes;
      this.#partial = "";
      this.#partialBytes = 0;
      return;
    }
    this.#partial += piece;
    this.#partialBytes += bytes;
  }

  #finishLine(): SplitResult {
    if (this.#discarding) {
      const bytes = this.#discardedBytes;
      this.#discarding = false;
      this.#discardedBytes = 0;
      return { kind: "oversized", bytes };
    }
    const line = this.#partial.endsWith("\r") ? this.#partial.slice(0, -1) : this.#partial;
    this.#partial = "";
    this.#partialBytes = 0;
    return { kind: "line", line };
  }
}
