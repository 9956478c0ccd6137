/**
 * A parsed JSON value as compact JSON text of at most `maxChars` characters, for a prompt: the
 * text stops where the bound is reached and ends in `…`, and tables or lists nested deeper than
 * `MAX_DEPTH` are written `…`. The work is bounded by the text written, not by the value: a
 * substitution of a 1 MB subtree costs what its first `maxChars` characters cost.
 */
export function boundedJson(value: unknown, maxChars: number): string {
  const out = new BoundedText(maxChars);
  write(value, out, 0);
  return out.text();
}

/** Deeper than this, a table or a list is written `…`: a body of ten thousand `[` costs no more than one. */
export const MAX_DEPTH = 32;

const ELLIPSIS = "…";

class BoundedText {
  readonly #maxChars: number;
  readonly #pieces: string[] = [];
  #length = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Whether the bound is reached: nothing more is written. */
  get full(): boolean {
    return this.#length > this.#maxChars;
  }

  /** How many more characters are kept: the rest of the bound, and one to tell that it was passed. */
  get room(): number {
    return Math.max(0, this.#maxChars + 1 - this.#length);
  }

  /** `piece`, or as much of it as takes the text one past the bound (enough to know it was cut). */
  add(piece: string): void {
    if (this.full) return;
    const room = this.room;
    const kept = piece.length <= room ? piece : piece.slice(0, room);
    this.#pieces.push(kept);
    this.#length += kept.length;
  }

  text(): string {
    const whole = this.#pieces.join("");
    return whole.length <= this.#maxChars ? whole : `${whole.slice(0, Math.max(0, this.#maxChars - ELLIPSIS.length))}${ELLIPSIS}`;
  }
}

function write(value: unknown, out: BoundedText, depth: number): void {
  if (out.full) return;
  if (typeof value === "string") {
    out.add(quoted(value, out.room));
    return;
  }
  if (typeof value !== "object" || value === null) {
    out.add(JSON.stringify(value) ?? "null");
    return;
  }
  if (depth >= MAX_DEPTH) {
    out.add(ELLIPSIS);
    return;
  }
  if (Array.isArray(value)) {
    out.add("[");
    for (let i = 0; i < value.length && !out.full; i++) {
      if (i > 0) out.add(",");
      write(value[i], out, depth + 1);
    }
    out.add("]");
    return;
  }
  out.add("{");
  let first = true;
  for (const key in value) {
    if (out.full) break;
    if (!Object.hasOwn(value, key)) continue;
    if (!first) out.add(",");
    first = false;
    out.add(`${quoted(key, out.room)}:`);
    write((value as Record<string, unknown>)[key], out, depth + 1);
  }
  out.add("}");
}

/** `text` as a JSON string, escaped only as far as `room` characters of it: escaping never shortens, so that is enough to fill the room. */
function quoted(text: string, room: number): string {
  return JSON.stringify(text.length > room ? text.slice(0, room) : text);
}
