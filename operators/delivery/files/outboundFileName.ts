const MAX_NAME_CHARS = 200;
/**
 * Control characters and the invisible format characters (bidi overrides, zero-width) a name could
 * hide behind, and the line and paragraph separators that would break the one line it is shown on.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * The name a chat shows for a file the agent sends: the last segment of what it gave (a path is
 * never shown), control and invisible format characters removed, at most 200 characters, never
 * `.` or `..`; `fallback` when nothing is left. Linear in the input.
 */
export function outboundFileName(given: string | undefined, fallback: string): string {
  if (given === undefined) return fallback;
  const lastSlash = Math.max(given.lastIndexOf("/"), given.lastIndexOf("\\"));
  const base = given.slice(lastSlash + 1).replace(HIDDEN, "").trim();
  const bounded = [...base].slice(0, MAX_NAME_CHARS).join("");
  return bounded === "" || bounded === "." || bounded === ".." ? fallback : bounded;
}
