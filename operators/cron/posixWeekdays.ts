import { CronExpressionError } from "./cronExpressionError.js";
import { rustDebugString as quoted } from "./rustDebugString.js";

// OpenAB's `translate_posix_dow_field` (PR #785): POSIX day-of-week numbers (0 and 7 = Sunday,
// 1 = Monday) rewritten into the `cron` crate's (1 = Sunday … 7 = Saturday), with its error texts.

const U32_MAX = 4_294_967_295;

/** Rust's `str::parse::<u32>()`: an optional `+`, ASCII digits, no overflow. */
function parseU32(text: string): number | undefined {
  if (!/^\+?[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return value <= U32_MAX ? value : undefined;
}

const hasLetter = (text: string) => /[A-Za-z]/.test(text);
const hasDigit = (text: string) => /[0-9]/.test(text);

/** The POSIX days (0-7, before 7 becomes 0) one comma item names, before its step. */
function itemDays(part: string, range: string, step: number): number[] {
  if (range === "*") return [0, 1, 2, 3, 4, 5, 6];
  const dash = range.indexOf("-");
  if (dash >= 0) {
    const start = parseU32(range.slice(0, dash));
    if (start === undefined) throw new CronExpressionError(`invalid range start in ${quoted(part)}`);
    const end = parseU32(range.slice(dash + 1));
    if (end === undefined) throw new CronExpressionError(`invalid range end in ${quoted(part)}`);
    if (start > 7 || end > 7) throw new CronExpressionError(`day-of-week value out of range (0-7) in ${quoted(part)}`);
    if (start > end) throw new CronExpressionError(`invalid range ${quoted(part)}: start > end`);
    return daysFrom(start, end);
  }
  const day = parseU32(range);
  if (day === undefined) throw new CronExpressionError(`invalid number in ${quoted(part)}`);
  if (day > 7) throw new CronExpressionError(`day-of-week value out of range (0-7): ${day}`);
  // `n/s` runs from n to the end of the week; 7 is Sunday, the start of it.
  return step > 1 ? daysFrom(day === 7 ? 0 : day, 6) : [day];
}

function daysFrom(start: number, end: number): number[] {
  const days: number[] = [];
  for (let day = start; day <= end; day++) days.push(day);
  return days;
}

/** Sorted crate ordinals as a list with contiguous runs written `a-b`: `[2,3,5,6]` → `"2-3,5-6"`. */
function compactOrdinals(sorted: readonly number[]): string {
  const runs: string[] = [];
  let start = 0;
  for (let index = 1; index <= sorted.length; index++) {
    if (index < sorted.length && sorted[index] === (sorted[index - 1] as number) + 1) continue;
    const first = sorted[start] as number;
    const last = sorted[index - 1] as number;
    runs.push(first === last ? `${first}` : `${first}-${last}`);
    start = index;
  }
  return runs.join(",");
}

/**
 * A POSIX day-of-week field in the `cron` crate's numbering (upstream's `translate_posix_dow_field`):
 * names (`Mon-Fri`) pass unchanged, a field mixing names and numbers is refused, numbers (`*`, `n`,
 * `a-b`, each with an optional `/step`, in a comma list) become the crate's ordinals: `*` for the
 * whole week, else each POSIX day plus one, sorted, runs written `a-b` (`1-5` → `2-6`, `0,7` → `1`).
 * Throws CronExpressionError with upstream's message. Linear in the field.
 */
export function translatePosixWeekdays(field: string): string {
  const letters = hasLetter(field);
  if (letters && hasDigit(field)) throw new CronExpressionError(`mixed numeric and name notation is not supported in day-of-week field: ${quoted(field)}`);
  if (letters) return field;
  if (field === "") throw new CronExpressionError("empty day-of-week field");

  const days = new Set<number>();
  for (const part of field.split(",")) {
    if (part === "") throw new CronExpressionError(`empty component in day-of-week field: ${quoted(field)}`);
    const slash = part.indexOf("/");
    let step = 1;
    if (slash >= 0) {
      const parsed = parseU32(part.slice(slash + 1));
      if (parsed === undefined) throw new CronExpressionError(`invalid step value in ${quoted(part)}`);
      if (parsed === 0) throw new CronExpressionError(`step value cannot be zero in ${quoted(part)}`);
      step = parsed;
    }
    const listed = itemDays(part, slash >= 0 ? part.slice(0, slash) : part, step);
    // The step keeps every step-th day of the item's list, counted from its first.
    for (let index = 0; index < listed.length; index += step) days.add((listed[index] as number) % 7);
  }

  if (days.size === 7) return "*";
  return compactOrdinals([...days].sort((a, b) => a - b).map((day) => day + 1));
}
