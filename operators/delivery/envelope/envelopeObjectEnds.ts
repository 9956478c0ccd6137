/**
 * Where each object closes, with string state fresh from its `{`. One scan settles every `{` it
 * meets outside a string (a fresh scan from there reads the rest the same way), so only a `{`
 * that a scan saw inside a string costs a scan of its own. Adversarial text can still make that
 * quadratic: past a budget the rescan stops, and the fallback's marker check keeps what is left
 * from ever being sent.
 */
export class ObjectEnds {
  readonly #text: string;
  // Per offset of a `{`: 0 not settled yet, UNCLOSED, or the offset after its `}`. Typed arrays,
  // not a Map: a megabyte of braces is a million entries.
  readonly #settled: Int32Array;
  readonly #open: Int32Array;
  #budget: number;

  constructor(text: string) {
    this.#text = text;
    this.#settled = new Int32Array(text.length);
    this.#open = new Int32Array(text.length);
    this.#budget = 16 * text.length + 65_536;
  }

  get exhausted(): boolean {
    return this.#budget <= 0;
  }

  /** The offset after the closing `}`, or `undefined` if the object never closes. */
  of(start: number): number | undefined {
    if (this.#settled[start] === 0) this.#scanFrom(start);
    const end = this.#settled[start] ?? UNCLOSED;
    return end === UNCLOSED ? undefined : end;
  }

  #scanFrom(start: number): void {
    const text = this.#text;
    const settled = this.#settled;
    const open = this.#open;
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACE) {
        open[depth++] = i;
      } else if (c === CLOSE_BRACE && depth > 0) {
        settled[open[--depth] ?? 0] = i + 1;
        if (depth === 0) {
          this.#budget -= i + 1 - start;
          return;
        }
      }
    }
    this.#budget -= text.length - start;
    for (let level = 0; level < depth; level++) settled[open[level] ?? 0] = UNCLOSED;
  }
}

const UNCLOSED = -1;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
