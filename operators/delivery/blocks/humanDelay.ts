/** OpenClaw's `humanDelay`: how long a reply's later messages wait, to read as typed. */
export type HumanDelay =
  | { readonly mode: "off" }
  | { readonly mode: "natural" }
  | { readonly mode: "custom"; readonly minMs?: number; readonly maxMs?: number };

/** `natural`'s range, and `custom`'s defaults (peers.md §6.3). */
const NATURAL = { minMs: 800, maxMs: 2500 } as const;

/** The inclusive range a non-first block waits, or undefined for off: natural [800, 2500]; custom [minMs ?? 800, maxMs ?? 2500], and max ≤ min → exactly min. */
export function humanDelayRange(setting: HumanDelay): { readonly minMs: number; readonly maxMs: number } | undefined {
  switch (setting.mode) {
    case "off":
      return undefined;
    case "natural":
      return NATURAL;
    case "custom": {
      const minMs = setting.minMs ?? NATURAL.minMs;
      return { minMs, maxMs: Math.max(minMs, setting.maxMs ?? NATURAL.maxMs) };
    }
  }
}

/**
 * The wait before each message of a reply: 0 before the first (index 0), and a uniform integer in the range before every later one.
 * `randomInt(n)` returns an integer in [0, n) (the broker passes node:crypto's randomInt; tests pass a fixed sequence).
 */
export function humanGap(setting: HumanDelay, randomInt: (bound: number) => number): (index: number) => number {
  const range = humanDelayRange(setting);
  if (range === undefined) return () => 0;
  const { minMs, maxMs } = range;
  return (index) => {
    if (index <= 0) return 0;
    // A range of one value draws nothing, as OpenClaw's does.
    return maxMs > minMs ? minMs + randomInt(maxMs - minMs + 1) : minMs;
  };
}
