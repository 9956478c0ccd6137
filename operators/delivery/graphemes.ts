// Measuring and cutting text the way OpenAB's `format.rs` does: lengths in Unicode scalar values
// ("chars"), never UTF-16 units, and cuts on extended grapheme cluster boundaries.

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// Rust's `char::is_whitespace` is the Unicode White_Space property (JS `\s` adds U+FEFF).
const WHITE_SPACE_ONLY = /^\p{White_Space}+$/u;

/** Number of Unicode scalar values (Rust's `s.chars().count()`). */
export function charCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one scalar: count the pair once.
    if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    count++;
  }
  return count;
}

/**
 * UTF-16 index ending the longest prefix of whole grapheme clusters with at most `maxChars`
 * chars; 0 when not even the first cluster fits. With `wordWrap`, a cut that leaves text behind
 * backs up to just after the last whitespace cluster of the prefix (upstream `split_point`).
 */
export function graphemeCut(text: string, maxChars: number, wordWrap: boolean): number {
  let chars = 0;
  let end = 0;
  let afterLastSpace = 0;
  for (const { segment, index } of segmenter.segment(text)) {
    const width = charCount(segment);
    if (chars + width > maxChars) break;
    chars += width;
    end = index + segment.length;
    if (WHITE_SPACE_ONLY.test(segment)) afterLastSpace = end;
  }
  return wordWrap && end < text.length && afterLastSpace > 0 ? afterLastSpace : end;
}

/**
 * UTF-16 index after `maxChars` scalar values (at least one, so a caller always progresses).
 * The last resort for a single cluster wider than the room left: it is cut inside.
 */
export function codePointCut(text: string, maxChars: number): number {
  let end = 0;
  for (let taken = 0; taken < Math.max(maxChars, 1) && end < text.length; taken++) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return end;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
