// OpenAB trims with Rust's `str::trim*`, whose whitespace (Unicode White_Space) differs from
// JavaScript's `String.prototype.trim`: Rust also trims U+0085 (NEL) and keeps U+FEFF (BOM).
// Byte-compatible output needs Rust's set. All of it is in the BMP, so code units suffice.
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

// Index loops, not a `\s+$`-style regex: that backtracks quadratically on long inner runs.

/** `char::is_whitespace` for one UTF-16 code unit (`str::split_whitespace` splits on these). */
export function isRustWhitespace(code: number): boolean {
  return WHITE_SPACE.has(code);
}

/** `str::trim_start`. */
export function rustTrimStart(text: string): string {
  let start = 0;
  while (start < text.length && WHITE_SPACE.has(text.charCodeAt(start))) start++;
  return text.slice(start);
}

/** `str::trim_end`. */
export function rustTrimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && WHITE_SPACE.has(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/** `str::trim`. */
export function rustTrim(text: string): string {
  return rustTrimEnd(rustTrimStart(text));
}
