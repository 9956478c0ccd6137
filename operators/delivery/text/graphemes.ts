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
    if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    count++;
  }
  return count;
}

/**
 * UTF-16 index ending the longest prefix of whole grapheme clusters with at most `maxChars`
 * chars; 0 when not even the first cluster fits. With `wordWrap`, a cut that leaves text behind
 * backs up to just after the last whitespace cluster of the prefix (upstream `split_point`).
 *
 * Linear in `maxChars`, not in `text`: a long line is cut once per chunk, so work proportional to
 * the whole rest of the line made splitting quadratic. Only a window one scalar value wider than
 * the room is segmented (the segmenter copies its input), and the cut is found by asking for the
 * cluster at the room's end instead of walking every cluster before it.
 */
export function graphemeCut(text: string, maxChars: number, wordWrap: boolean): number {
  const room = scalarEnd(text, maxChars);
  if (room >= text.length) return text.length;
  const windowEnd = scalarEnd(text, maxChars + 1);
  if (isAscii(text, windowEnd)) return asciiCut(text, room, wordWrap);
  // Every boundary inside the window is one of `text` (a break depends on what precedes it and on
  // the next scalar only), and the window reaches past the room, so the cluster at the room's end
  // is settled inside it.
  const clusters = segmenter.segment(text.slice(0, windowEnd));
  const end = startOfCluster(clusters, room);
  return wordWrap ? afterLastSpace(text, clusters, end) : end;
}

/** In ASCII every char is a cluster except CR LF, and every whitespace char is a whitespace cluster. */
function asciiCut(text: string, room: number, wordWrap: boolean): number {
  const end = text.charCodeAt(room - 1) === CR && text.charCodeAt(room) === LF ? room - 1 : room;
  if (!wordWrap) return end;
  for (let at = end - 1; at >= 0; at--) if (isWhiteSpaceUnit(text.charCodeAt(at))) return at + 1;
  return end;
}

function isAscii(text: string, end: number): boolean {
  for (let at = 0; at < end; at++) if (text.charCodeAt(at) >= 0x80) return false;
  return true;
}

const CR = 0x0d;
const LF = 0x0a;

/** The largest cluster boundary at or before `index`. */
function startOfCluster(clusters: Intl.Segments, index: number): number {
  return clusters.containing(index)?.index ?? index;
}

/** Just after the last whitespace-only cluster ending by `end`, or `end` when there is none. */
function afterLastSpace(text: string, clusters: Intl.Segments, end: number): number {
  let at = end - 1;
  while (at >= 0) {
    if (!isWhiteSpaceUnit(text.charCodeAt(at))) {
      at--;
      continue;
    }
    // A space with a combining mark on it is a cluster, but not a whitespace one.
    const cluster = clusters.containing(at);
    if (cluster === undefined) return end;
    if (WHITE_SPACE_ONLY.test(cluster.segment)) return cluster.index + cluster.segment.length;
    at = cluster.index - 1;
  }
  return end;
}

/** UTF-16 index after `count` scalar values, or the text's length when it holds fewer. */
function scalarEnd(text: string, count: number): number {
  let end = 0;
  for (let taken = 0; taken < count && end < text.length; taken++) {
    end += isHighSurrogate(text.charCodeAt(end)) && isLowSurrogate(text.charCodeAt(end + 1)) ? 2 : 1;
  }
  return end;
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

/** Every White_Space character is in the BMP, so one UTF-16 unit decides. */
function isWhiteSpaceUnit(unit: number): boolean {
  if (unit < 0x80) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  return WHITE_SPACE_ONLY.test(String.fromCharCode(unit));
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
