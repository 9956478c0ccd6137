/** Block Kit's bound on a `section` block's text, in characters. */
export const SECTION_TEXT_LIMIT = 3000;

const FENCE = "```";
const CLOSE_FENCE = `\n${FENCE}`;
const REOPEN_FENCE = `${FENCE}\n`;

/**
 * A mrkdwn text as the texts of consecutive `section` blocks, each at most `limit` characters (code
 * points, as Slack counts): lines are kept whole where they fit, a longer line is cut at its last
 * space (else at the limit, never inside a `<…>` link or mention, an `&…;` entity or a surrogate
 * pair). A code block cut in two is closed at the end of one section and opened again at the start
 * of the next, so the second half still shows as code. Parts that are only whitespace are left out
 * (Slack refuses an empty section); an empty text gives none.
 *
 * With `fences: false` (an escaped plain text, for `plain_text` sections) a fence is three
 * backticks like any others: nothing is added, as plain text would show the added fences.
 */
export function sectionTexts(text: string, limit = SECTION_TEXT_LIMIT, options: { readonly fences?: boolean } = {}): string[] {
  const fences = options.fences ?? true;
  // Room for a fence closed at the end and opened again at the start of every part.
  const budget = fences ? Math.max(1, limit - CLOSE_FENCE.length - REOPEN_FENCE.length) : limit;
  const parts: string[] = [];
  let current: string[] | undefined;
  let currentLength = 0;
  let startsInFence = false;
  let inFence = false;
  const flush = () => {
    if (current !== undefined) {
      const part = current.join("");
      if (part.trim() !== "") parts.push(`${startsInFence ? REOPEN_FENCE : ""}${part}${inFence ? CLOSE_FENCE : ""}`);
    }
    current = undefined;
    currentLength = 0;
    startsInFence = inFence;
  };
  for (const line of text.split("\n")) {
    cutLine(Array.from(line), budget).forEach((piece, index) => {
      const joinsLine = index === 0 && current !== undefined;
      if (current === undefined || !joinsLine || currentLength + 1 + piece.length > budget) {
        flush();
        current = [piece.join("")];
        currentLength = piece.length;
        return;
      }
      current.push("\n", piece.join(""));
      currentLength += 1 + piece.length;
    });
    if (fences && line.trimStart().startsWith(FENCE)) inFence = !inFence;
  }
  // The last part is left as written: a fence the text never closed is not closed here either.
  inFence = false;
  flush();
  return parts;
}

/** A line (as code points) in pieces of at most `budget`, cut where a reader least minds. */
function cutLine(line: string[], budget: number): string[][] {
  const pieces: string[][] = [];
  let rest = line;
  while (rest.length > budget) {
    const at = cutPoint(rest, budget);
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  pieces.push(rest);
  return pieces;
}

/** Where to cut `chars` (longer than `budget`): after the last space in the second half, else at the budget outside a token. */
function cutPoint(chars: readonly string[], budget: number): number {
  for (let at = budget; at > budget / 2; at--) if (chars[at - 1] === " ") return at;
  const head = chars.slice(0, budget);
  const open = head.lastIndexOf("<");
  if (open > 0 && open > head.lastIndexOf(">")) return open;
  const entity = head.lastIndexOf("&");
  if (entity > 0 && entity >= budget - 8 && entity > head.lastIndexOf(";")) return entity;
  return budget;
}
