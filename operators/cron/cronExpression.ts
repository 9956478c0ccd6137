import { isRustWhitespace } from "../delivery/text/rustWhitespace.js";
import { CronExpressionError } from "./cronExpressionError.js";
import { DAY_OF_MONTH_FIELD, DAY_OF_WEEK_FIELD, HOUR_FIELD, MINUTE_FIELD, MONTH_FIELD, parseCronField } from "./cronField.js";
import { rustDebugString } from "./rustDebugString.js";
import { translatePosixWeekdays } from "./posixWeekdays.js";

export { CronExpressionError } from "./cronExpressionError.js";

/** One minute of local (wall-clock) time, as a schedule is matched against it. */
export interface LocalMinute {
  readonly minute: number;
  readonly hour: number;
  /** Day of the month, 1-31. */
  readonly day: number;
  /** 1-12. */
  readonly month: number;
  /** 0 = Sunday … 6 = Saturday. */
  readonly weekday: number;
}

/** The values each field of a schedule allows, ascending: what `nextFiring` skips by. */
export interface CronFields {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly days: readonly number[];
  readonly months: readonly number[];
  /** 0 = Sunday … 6 = Saturday. */
  readonly weekdays: readonly number[];
}

export interface CronSchedule {
  /** As written in the config. */
  readonly expression: string;
  readonly fields: CronFields;
  /** Every field matches, day-of-month and day-of-week both (the crate's AND, not Vixie cron's OR). */
  matches(local: LocalMinute): boolean;
}

/** `str::split_whitespace`: Rust's Unicode White_Space, so a field count agrees with upstream's. */
function splitFields(expression: string): string[] {
  const fields: string[] = [];
  let start = -1;
  for (let index = 0; index <= expression.length; index++) {
    const space = index === expression.length || isRustWhitespace(expression.charCodeAt(index));
    if (space && start >= 0) {
      fields.push(expression.slice(start, index));
      start = -1;
    } else if (!space && start < 0) start = index;
  }
  return fields;
}

function lookup(values: readonly number[], size: number): readonly boolean[] {
  const table = new Array<boolean>(size).fill(false);
  for (const value of values) table[value] = true;
  return table;
}

/**
 * Parses OpenAB's schedule syntax as newer upstream does (PR #785): exactly five whitespace-separated
 * fields `minute hour day-of-month month day-of-week`, each in the `cron` crate's grammar (`*`, `n`,
 * `a-b`, `a/s`, `a-b/s`, `*\/s`, comma lists, month and day names in any case; `?` in day-of-month
 * only), day-of-week in POSIX numbering (0 and 7 = Sunday). No `@` shorthands, no `L`, `W`, `#`.
 * Each field must be one field of the crate's grammar whole. Throws CronExpressionError. Linear.
 */
export function parseCronExpression(expression: string): CronSchedule {
  const parts = splitFields(expression);
  if (parts.length !== 5) throw new CronExpressionError(`expected 5 whitespace-separated cron fields, got ${parts.length}: ${rustDebugString(expression)}`);
  const [minute, hour, day, month, weekday] = parts as [string, string, string, string, string];
  const weekdayField = translatePosixWeekdays(weekday);
  const fields: CronFields = {
    minutes: parseCronField(MINUTE_FIELD, minute),
    hours: parseCronField(HOUR_FIELD, hour),
    days: parseCronField(DAY_OF_MONTH_FIELD, day),
    months: parseCronField(MONTH_FIELD, month),
    // The crate's 1 = Sunday back to 0 = Sunday.
    weekdays: parseCronField(DAY_OF_WEEK_FIELD, weekdayField).map((ordinal) => ordinal - 1),
  };
  const minutes = lookup(fields.minutes, 60);
  const hours = lookup(fields.hours, 24);
  const days = lookup(fields.days, 32);
  const months = lookup(fields.months, 13);
  const weekdays = lookup(fields.weekdays, 7);
  return {
    expression,
    fields,
    matches: (local) =>
      minutes[local.minute] === true && hours[local.hour] === true && days[local.day] === true && months[local.month] === true && weekdays[local.weekday] === true,
  };
}
