// The text paths' cost per KB of input (issue 16): every one must be linear in its input, so the
// µs per KB of each stays flat from 1 KB to 1 MB. Each input is one long line, the shape that made
// splitting quadratic; split at a limit of 256 chars. A measurement is the median of `TEXT_BATCHES` timed batches, each repeating
// the call until it has run `TEXT_BATCH_MS` ms (at least once).
import { findEnvelopeSpan } from "../operators/delivery/envelope/findEnvelopeSpan.js";
import { parseOutputDirectives } from "../operators/delivery/text/outputDirectives.js";
import { silentReply } from "../operators/delivery/text/silentReply.js";
import { splitMessage } from "../operators/delivery/text/splitMessage.js";
import { proseAroundEnvelope } from "../operators/delivery/envelope/stripEnvelope.js";
import { emit, note, quick, sized } from "./lib/benchEnv.js";
import { median, round } from "./lib/stats.js";

const KB = 1024;
const SIZES_KB = quick ? [1, 16, 256] : [1, 4, 16, 64, 256, 1024];
const batches = sized("TEXT_BATCHES", 7, 3);
const batchMs = sized("TEXT_BATCH_MS", 50, 10);
/** A small platform limit, so that even the 1 KB input splits: every size takes the same path. */
const LIMIT = 256;

/** `n` UTF-16 units of `unit` repeated (cut on a code point boundary). */
function filled(unit: string, n: number): string {
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n).replace(/[\ud800-\udbff]$/, "x");
}

const words = (n: number) => filled("word1 word22 word333 ", n);
const envelope = (n: number) => JSON.stringify({ schema: "openab.turn.v1", messages: [{ id: "b1", text: words(n) }], next: { type: "stop" } });

interface TextPath {
  readonly name: string;
  /** What the input is, for the doc. */
  readonly input: string;
  readonly make: (n: number) => string;
  readonly run: (text: string) => unknown;
}

const silent = { token: "NO_REPLY", reportToken: "NOTHING_TO_REPORT", proactive: true };

const TEXT_PATHS: readonly TextPath[] = [
  { name: "split, words", input: "one line of words", make: words, run: (text) => splitMessage(text, LIMIT) },
  { name: "split, no whitespace", input: "one line without a space", make: (n) => filled("x", n), run: (text) => splitMessage(text, LIMIT) },
  {
    name: "split, grapheme clusters",
    input: "emoji with skin tones, ZWJ families, combining marks",
    make: (n) => filled("👍🏽e\u0301\u0302👨‍👩‍👧 ", n),
    run: (text) => splitMessage(text, LIMIT),
  },
  { name: "envelope scan", input: "an envelope with one bubble of that size", make: envelope, run: (text) => findEnvelopeSpan(text) },
  {
    name: "envelope scan, nested braces",
    input: "nested `{`…`}` before a marker (the hardened rescan)",
    make: (n) => `${"{".repeat(n / 2 - 6)}${"}".repeat(n / 2 - 6)}"messages"`,
    run: (text) => findEnvelopeSpan(text),
  },
  { name: "silent-token scan", input: "words ending in ` NO_REPLY`", make: (n) => `${words(n - 9)} NO_REPLY`, run: (text) => silentReply(text, silent) },
  {
    name: "silent-token scan, whitespace run",
    input: "a word, a run of spaces, a word",
    make: (n) => `a${" ".repeat(n - 2)}b`,
    run: (text) => silentReply(text, silent),
  },
  {
    name: "strip envelope",
    input: "prose, an envelope, prose (`fallback_text`)",
    make: (n) => `${words(n / 4)}\n${envelope(n / 2)}\n${words(n / 4)}`,
    run: (text) => proseAroundEnvelope(text),
  },
  {
    name: "directive header",
    input: "`[[reply_to:…]]` then one line of words",
    make: (n) => `[[reply_to:m1]]\n${words(n - 16)}`,
    run: (text) => parseOutputDirectives(text),
  },
];

/** Microseconds per call: the median of the batches. */
function microsPerCall(run: () => unknown): number {
  const perCall: number[] = [];
  run(); // warm the code path
  for (let batch = 0; batch < batches; batch++) {
    let calls = 0;
    const started = performance.now();
    let elapsed = 0;
    do {
      run();
      calls += 1;
      elapsed = performance.now() - started;
    } while (elapsed < batchMs);
    perCall.push((elapsed * 1000) / calls);
  }
  return median(perCall);
}

const paths: Record<string, Record<string, number>> = {};
const growth: Record<string, number> = {};
for (const path of TEXT_PATHS) {
  const perKB: Record<string, number> = {};
  for (const sizeKB of SIZES_KB) {
    const text = path.make(sizeKB * KB);
    perKB[String(sizeKB)] = round(microsPerCall(() => path.run(text)) / sizeKB, 3);
  }
  const values = Object.values(perKB);
  const smallest = perKB[String(SIZES_KB[0])] ?? 0;
  const largest = perKB[String(SIZES_KB.at(-1))] ?? 0;
  paths[path.name] = perKB;
  // Linear cost keeps this near 1 (or below: fixed per-call costs spread thinner); quadratic makes it ~the size ratio.
  growth[path.name] = round(largest / Math.max(smallest, Number.MIN_VALUE), 2);
  note(`${path.name}: ${values.join(", ")} µs/KB`);
}

emit({
  benchmark: "text-paths",
  unit: "µs/KB",
  sizesKB: SIZES_KB,
  limit: LIMIT,
  batches,
  batchMs,
  inputs: Object.fromEntries(TEXT_PATHS.map((path) => [path.name, path.input])),
  paths,
  growth,
  maxGrowth: Math.max(...Object.values(growth)),
});
