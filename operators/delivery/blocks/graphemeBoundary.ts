import { CR, isHighSurrogate, isLowSurrogate, LF } from "./breakScan.js";

/**
 * Where a hard cut of the block starting at `start` in `text` falls, at or before `to`: the last
 * grapheme boundary in (start, to], else the last code point boundary there, else start; the text's
 * end when `to` reaches it. `start` must be a boundary.
 */
export function clusterEnd(text: string, start: number, to: number): number {
  if (to <= start) return start;
  if (to >= text.length) return text.length;
  const before = text.charCodeAt(to - 1);
  const after = text.charCodeAt(to);
  if (before < 0x80 && after < 0x80 && !(before === CR && after === LF)) return to;
  // From the block's start (a boundary) to one code point past `to`: enough to settle `to`.
  const window = text.slice(start, to + 2);
  const cluster = segmenter.segment(window).containing(to - start);
  const boundary = start + (cluster?.index ?? to - start);
  if (boundary > start) return boundary;
  // One cluster wider than the room (a long ZWJ sequence, a run of marks): cut it between code points.
  const inPair = isHighSurrogate(before) && isLowSurrogate(after);
  return inPair ? Math.max(start, to - 1) : to;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
