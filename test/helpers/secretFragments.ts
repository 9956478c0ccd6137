/** The shortest piece of a secret that counts as shown: a cut that leaves 4 characters of a key has leaked them. */
export const FRAGMENT_CHARS = 4;

/** Every `FRAGMENT_CHARS`-character window of `secret`: any longer piece contains one. */
export function fragmentsOf(secret: string): string[] {
  const windows = new Set<string>();
  for (let i = 0; i + FRAGMENT_CHARS <= secret.length; i++) windows.add(secret.slice(i, i + FRAGMENT_CHARS));
  return [...windows];
}

/**
 * The pieces of `secret` that `shown` holds, leaving out those `innocent` holds (text around the
 * secret that may share a few letters with it): empty when nothing of the secret got through.
 */
export function shownFragments(shown: string, secret: string, innocent = ""): string[] {
  return fragmentsOf(secret).filter((fragment) => shown.includes(fragment) && !innocent.includes(fragment));
}
