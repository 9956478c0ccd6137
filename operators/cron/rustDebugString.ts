// Upstream's error texts quote with Rust's `{:?}` (`<str as Debug>::fmt`): the same escapes here,
// so a message reads as upstream's does and a control character never reaches a log line raw.

/** Rust's non-printable characters (`Zs` but the space, `Zl`, `Zp`, `C*`) and grapheme extenders: written `\u{…}`. */
const UNPRINTABLE = /[\p{Zs}\p{Zl}\p{Zp}\p{C}\p{Grapheme_Extend}]/u;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { "\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"' };

/** `format!("{:?}", text)` for a `&str`: double quotes, Rust's escapes. Linear in the text. */
export function rustDebugString(text: string): string {
  let out = '"';
  for (const char of text) {
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) out += short;
    else if (char !== " " && UNPRINTABLE.test(char)) out += `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`;
    else out += char;
  }
  return `${out}"`;
}
