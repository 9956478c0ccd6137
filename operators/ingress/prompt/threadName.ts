/**
 * The name of the thread opened for a conversation (OpenAB's `shorten_thread_name`, §2.5; Discord threads and cron threads): the
 * prompt without `@(role)` / `@(user)` placeholders, trimmed, each GitHub issue or pull request URL
 * as `owner/repo#n`, then its first 40 characters, with `...` when it was cut. Linear in the prompt.
 */

export const THREAD_NAME_CHARS = 40;
const PLACEHOLDERS = ["@(role)", "@(user)"];
const GITHUB = "github.com/";

export function shortenThreadName(prompt: string): string {
  let text = prompt;
  for (const placeholder of PLACEHOLDERS) text = text.split(placeholder).join("");
  return firstChars(shortGithubLinks(text.trim()), THREAD_NAME_CHARS);
}

/** `http(s)://github.com/<owner>/<repo>/(issues|pull)/<n>` → `<owner>/<repo>#<n>`, everywhere in `text`. */
export function shortGithubLinks(text: string): string {
  let out = "";
  let copied = 0;
  let at = text.indexOf(GITHUB);
  while (at !== -1) {
    const scheme = text.startsWith("https://", at - 8) ? at - 8 : text.startsWith("http://", at - 7) ? at - 7 : -1;
    const link = scheme >= copied ? linkAt(text, at + GITHUB.length) : undefined;
    if (link !== undefined) {
      out += text.slice(copied, scheme) + link.short;
      copied = link.end;
      at = text.indexOf(GITHUB, link.end);
    } else {
      at = text.indexOf(GITHUB, at + GITHUB.length);
    }
  }
  return out + text.slice(copied);
}

/** `<owner>/<repo>/(issues|pull)/<digits>` from `start`, as its short form and where it ends. */
function linkAt(text: string, start: number): { readonly short: string; readonly end: number } | undefined {
  const ownerEnd = segmentEnd(text, start);
  if (ownerEnd === start || text[ownerEnd] !== "/") return undefined;
  const repoEnd = segmentEnd(text, ownerEnd + 1);
  if (repoEnd === ownerEnd + 1 || text[repoEnd] !== "/") return undefined;
  const kind = text.startsWith("issues/", repoEnd + 1) ? "issues/" : text.startsWith("pull/", repoEnd + 1) ? "pull/" : undefined;
  if (kind === undefined) return undefined;
  const digitsFrom = repoEnd + 1 + kind.length;
  let end = digitsFrom;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end += 1;
  if (end === digitsFrom) return undefined;
  return { short: `${text.slice(start, repoEnd)}#${text.slice(digitsFrom, end)}`, end };
}

/** Where a path segment starting at `start` ends: at the next `/` or whitespace. */
function segmentEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && text[end] !== "/" && !/\s/.test(text[end] as string)) end += 1;
  return end;
}

/** The first `max` code points, and `...` when there were more (no trim after the cut, as upstream). */
function firstChars(text: string, max: number): string {
  let count = 0;
  let index = 0;
  for (const char of text) {
    if (count === max) return `${text.slice(0, index)}...`;
    count += 1;
    index += char.length;
  }
  return text;
}
