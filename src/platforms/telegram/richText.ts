/**
 * Whether a reply's Markdown needs a Telegram rich message to read as written (upstream's
 * `is_complex_markdown`): it has an ATX heading or a GFM table, which legacy Markdown shows as
 * bare `#` and rows of pipes. Headings and tables inside fenced code are code and do not count.
 *
 * Read line by line (LF, CRLF or CR endings), each line a constant number of times, so the time
 * is linear in the text; no regular expression sees more than one line. A false positive costs
 * little: a rich message shows plain text as well.
 */
export function isComplexMarkdown(text: string): boolean {
  let fence: Fence | undefined;
  /** The line before, while it may be a table's header row (not blank, not code). */
  let header: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      continue;
    }
    fence = openingFence(line);
    if (fence !== undefined) {
      header = undefined;
      continue;
    }
    if (isAtxHeading(line)) return true;
    if (header !== undefined && isDelimiterRow(line) && cellCount(header) === cellCount(line)) return true;
    header = line.trim() === "" ? undefined : line;
  }
  return false;
}

/** An open code fence: its character and how many of them opened it. */
interface Fence {
  readonly char: "`" | "~";
  readonly length: number;
}

/** Leading spaces, up to 4; a tab there makes it 4 (CommonMark's tab stop: indented code). */
function indentOf(line: string): number {
  let spaces = 0;
  while (spaces < 4) {
    const char = line[spaces];
    if (char === "\t") return 4;
    if (char !== " ") break;
    spaces++;
  }
  return spaces;
}

/** How many times `char` repeats from `start`. */
function run(line: string, start: number, char: string): number {
  let end = start;
  while (line[end] === char) end++;
  return end - start;
}

/** `# ` to `###### ` after up to 3 spaces: `#` then a space or a tab (`#tag` is no heading). */
function isAtxHeading(line: string): boolean {
  const indent = indentOf(line);
  if (indent > 3) return false;
  const hashes = run(line, indent, "#");
  const after = line[indent + hashes];
  return hashes >= 1 && hashes <= 6 && (after === " " || after === "\t");
}

/** Three or more backticks or tildes after up to 3 spaces; a backtick fence's info string has no backtick (else it is inline code). */
function openingFence(line: string): Fence | undefined {
  const indent = indentOf(line);
  if (indent > 3) return undefined;
  const char = line[indent];
  if (char !== "`" && char !== "~") return undefined;
  const length = run(line, indent, char);
  if (length < 3) return undefined;
  if (char === "`" && line.includes("`", indent + length)) return undefined;
  return { char, length };
}

/** The same character, at least as many, after up to 3 spaces, and nothing after but spaces and tabs. */
function closesFence(line: string, fence: Fence): boolean {
  const indent = indentOf(line);
  if (indent > 3) return false;
  const length = run(line, indent, fence.char);
  return length >= fence.length && line.slice(indent + length).trim() === "";
}

/**
 * A GFM delimiter row (`| --- | :-: |`, `--- | ---`): cells of dashes with an optional colon at
 * either end, pipes between them and optionally at the ends. Dashes alone (`---`) are a thematic
 * break or a setext underline, which CommonMark reads first, never a table.
 */
function isDelimiterRow(line: string): boolean {
  if (indentOf(line) > 3) return false;
  const row = line.trim();
  if (!row.includes("|") && !row.includes(":")) return false;
  return cellsOf(row).every((cell) => /^:?-+:?$/.test(cell.trim()));
}

/** A row's cells: split at pipes that no backslash escapes, a pipe at either end opening or closing the row. */
function cellCount(line: string): number {
  return cellsOf(line.trim()).length;
}

function cellsOf(row: string): string[] {
  const cells: string[] = [];
  let start = row.startsWith("|") ? 1 : 0;
  for (let i = start; i < row.length; i++) {
    if (row[i] === "\\") i++;
    else if (row[i] === "|") {
      cells.push(row.slice(start, i));
      start = i + 1;
    }
  }
  // A trailing pipe closes the row; anything after the last pipe is one more cell.
  if (start < row.length || cells.length === 0) cells.push(row.slice(start));
  return cells;
}
