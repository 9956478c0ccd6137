/** Levenshtein distance, case-insensitive: "Gateway" is a typo of "gateway", not a new key. */
export function editDistance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= right.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

/**
 * The allowed key nearest to `key` within `maxDistance` edits (first on a tie), if any. A guess
 * that rewrites as many characters as the key has ("x" → "cap") is no guess, so it is skipped.
 */
export function closestKey(key: string, allowed: readonly string[], maxDistance = 2): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of allowed) {
    const distance = editDistance(key, candidate);
    if (distance < bestDistance && distance < key.length) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
