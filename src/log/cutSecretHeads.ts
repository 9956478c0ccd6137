/**
 * Where `untrustedText` cut a string it ends in `…(+1,234 chars)` (`truncationMarker`). Strings
 * are cut at their source (an agent's stderr line, at 500 characters) and again by the logger's
 * field bound, both before a line is scrubbed, so a secret that straddles the cut shows only its
 * head, which a scrubber looking for whole secrets cannot see: `…x Zq7XenvK-0c…(+20 chars)`.
 */
const CUT_OPENS = "…(+";
const CUT_ENDS = /[\d,]+ chars\)/y;
/** A URL's authority cut short: what shows may be only its user info, `https://bob:hunter…`. */
const CUT_AUTHORITY = /:\/\/[^\s/?#@"\\]+(?=…\(\+[\d,]+ chars\))/g;

/**
 * `line` with the head of any of `forms` (the secrets' spellings) that ends right at a cut
 * replaced by `mask`, as is a URL authority the cut ended. A head shorter than `minChars` is left,
 * as the scrubber leaves secrets that short. Linear in the line for given forms.
 */
export function maskCutHeads(line: string, forms: readonly string[], mask: string, minChars: number): string {
  if (!line.includes(CUT_OPENS)) return line;
  const text = line.replace(CUT_AUTHORITY, `://${mask}`);
  let out = "";
  let copied = 0;
  for (let end = text.indexOf(CUT_OPENS); end !== -1; end = text.indexOf(CUT_OPENS, end + CUT_OPENS.length)) {
    CUT_ENDS.lastIndex = end + CUT_OPENS.length;
    if (!CUT_ENDS.test(text)) continue;
    let head = 0;
    for (const form of forms) head = Math.max(head, headLength(text, end, form, minChars));
    head = Math.min(head, end - copied);
    if (head < minChars) continue;
    out += `${text.slice(copied, end - head)}${mask}`;
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The longest head of `form`, at least `minChars` and short of the whole, that `text` ends with at `end`; 0 when none. */
function headLength(text: string, end: number, form: string, minChars: number): number {
  for (let length = Math.min(form.length - 1, end); length >= minChars; length--) {
    const start = end - length;
    let same = 0;
    while (same < length && text.charCodeAt(start + same) === form.charCodeAt(same)) same++;
    if (same === length) return length;
  }
  return 0;
}
