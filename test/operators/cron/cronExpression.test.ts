import { describe, expect, it } from "vitest";
import { CronExpressionError, parseCronExpression, type LocalMinute } from "../../../operators/cron/cronExpression.js";

/** The error `parseCronExpression(expression)` throws. */
function failure(expression: string): CronExpressionError {
  try {
    parseCronExpression(expression);
  } catch (error) {
    if (error instanceof CronExpressionError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(expression)} was accepted`);
}

const fieldsOf = (expression: string) => parseCronExpression(expression).fields;
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, index) => from + index * step);
const at = (local: Partial<LocalMinute>): LocalMinute => ({ minute: 0, hour: 0, day: 1, month: 1, weekday: 0, ...local });

describe("parseCronExpression: reference §6.1", () => {
  it.each(["0 9 * * 1-5", "* * * * *", "0 0 * * 0"])("accepts %j", (expression) => {
    expect(parseCronExpression(expression).expression).toBe(expression);
  });

  it.each([
    ["not a cron", 'expected 5 whitespace-separated cron fields, got 3: "not a cron"'],
    ["0 0 9 * * 1-5", 'expected 5 whitespace-separated cron fields, got 6: "0 0 9 * * 1-5"'],
    ["0 0 9 * * *", 'expected 5 whitespace-separated cron fields, got 6: "0 0 9 * * *"'],
    ["* * * *", 'expected 5 whitespace-separated cron fields, got 4: "* * * *"'],
    ["", 'expected 5 whitespace-separated cron fields, got 0: ""'],
  ])("refuses %j with upstream's text", (expression, message) => {
    expect(failure(expression).message).toBe(message);
  });

  it("`0 0 * * 0` is Sundays at 00:00 (POSIX 0 = Sunday), as is 7", () => {
    expect(fieldsOf("0 0 * * 0")).toEqual({ minutes: [0], hours: [0], days: range(1, 31), months: range(1, 12), weekdays: [0] });
    expect(fieldsOf("0 0 * * 7").weekdays).toEqual([0]);
  });

  it("`1-5` is Monday to Friday, `Mon-Fri` too, `6` Saturday", () => {
    expect(fieldsOf("0 9 * * 1-5").weekdays).toEqual([1, 2, 3, 4, 5]);
    expect(fieldsOf("0 7 * * Mon-Fri").weekdays).toEqual([1, 2, 3, 4, 5]);
    expect(fieldsOf("0 7 * * 6").weekdays).toEqual([6]);
  });
});

describe("parseCronExpression: the cron crate's field grammar", () => {
  it.each([
    ["*/15", [0, 15, 30, 45]],
    ["5/20", [5, 25, 45]],
    ["10-20/5", [10, 15, 20]],
    ["1,2,30-32", [1, 2, 30, 31, 32]],
    ["*/59", [0, 59]],
    ["07", [7]],
    ["*,5", range(0, 59)],
    ["59-59", [59]],
  ])("minute %j", (field, minutes) => {
    expect(fieldsOf(`${field} * * * *`).minutes).toEqual(minutes);
  });

  it("hours and days of month, with `?` (= `*`) in day-of-month", () => {
    expect(fieldsOf("0 */23 * * *").hours).toEqual([0, 23]);
    expect(fieldsOf("0 9-17/4 * * *").hours).toEqual([9, 13, 17]);
    expect(fieldsOf("0 0 ? * *").days).toEqual(range(1, 31));
    expect(fieldsOf("0 0 ?/10 * *").days).toEqual([1, 11, 21, 31]);
    expect(fieldsOf("0 0 */31 * *").days).toEqual([1]);
    expect(fieldsOf("0 0 1,15 * *").days).toEqual([1, 15]);
  });

  it("month names, short and full, in any case, in ranges and periods", () => {
    expect(fieldsOf("0 0 1 JAN *").months).toEqual([1]);
    expect(fieldsOf("0 0 1 january,May,sep *").months).toEqual([1, 5, 9]);
    expect(fieldsOf("0 0 1 Feb-Apr *").months).toEqual([2, 3, 4]);
    expect(fieldsOf("0 0 1 jan-jun/2 *").months).toEqual([1, 3, 5]);
    expect(fieldsOf("0 0 1 February-November/3 *").months).toEqual([2, 5, 8, 11]);
    expect(fieldsOf("0 0 1 */12 *").months).toEqual([1]);
  });

  it("day names, short and full, `tues` and `thurs`, in any case and in ranges", () => {
    expect(fieldsOf("0 0 * * sun").weekdays).toEqual([0]);
    expect(fieldsOf("0 0 * * SUNDAY,saturday").weekdays).toEqual([0, 6]);
    expect(fieldsOf("0 0 * * tues,Thurs").weekdays).toEqual([2, 4]);
    expect(fieldsOf("0 0 * * TUES-THURS").weekdays).toEqual([2, 3, 4]);
    expect(fieldsOf("0 0 * * Sun-Sat").weekdays).toEqual(range(0, 6));
    expect(fieldsOf("0 0 * * wednesday,*").weekdays).toEqual(range(0, 6));
  });

  it("splits on Rust's whitespace: tabs, runs, no-break and ideographic spaces, but not a BOM", () => {
    expect(parseCronExpression("  0\t9 \u00a0* \u3000*\n1-5 ").fields.hours).toEqual([9]);
    expect(failure("0 9 * *\ufeff 1-5").message).toBe('month field: invalid item "*\\u{feff}"');
  });

  it.each([
    // Steps: 1 up to the field's largest value; never 0.
    ["*/60 * * * *", 'minute field: step must be between 1 and 59 in "*/60"'],
    ["0 */24 * * *", 'hour field: step must be between 1 and 23 in "*/24"'],
    ["0 0 */32 * *", 'day-of-month field: step must be between 1 and 31 in "*/32"'],
    ["0 0 1 */13 *", 'month field: step must be between 1 and 12 in "*/13"'],
    ["*/0 * * * *", 'minute field: step value cannot be zero in "*/0"'],
    ["1-5/ * * * *", 'minute field: invalid step value in "1-5/"'],
    ["10-12/* * * * *", 'minute field: invalid step value in "10-12/*"'],
    // Values in range.
    ["60 * * * *", 'minute field: "60" is out of range (0-59) in "60"'],
    ["0 24 * * *", 'hour field: "24" is out of range (0-23) in "24"'],
    ["0 0 0 * *", 'day-of-month field: "0" is out of range (1-31) in "0"'],
    ["0 0 32 * *", 'day-of-month field: "32" is out of range (1-31) in "32"'],
    ["0 0 1 0 *", 'month field: "0" is out of range (1-12) in "0"'],
    ["0 0 1 13 *", 'month field: "13" is out of range (1-12) in "13"'],
    ["0 0 1 1-13 *", 'month field: "13" is out of range (1-12) in "1-13"'],
    ["99999999999 * * * *", 'minute field: "99999999999" is out of range (0-59) in "99999999999"'],
    // Ranges forwards.
    ["5-3 * * * *", 'minute field: invalid range "5-3": start > end'],
    ["0 0 1 Dec-Jan *", 'month field: invalid range "Dec-Jan": start > end'],
    ["0 0 * * Fri-Mon", 'day-of-week field: invalid range "Fri-Mon": start > end'],
    // Names only where the crate has them, and only its names.
    ["mon * * * *", 'minute field: names are not allowed here: "mon"'],
    ["0 0 jan * *", 'day-of-month field: names are not allowed here: "jan"'],
    ["0 0 1 Janu *", 'month field: unknown name "Janu"'],
    ["0 0 * * MON,TURTLE", 'day-of-week field: unknown name "TURTLE"'],
    ["0 0 * * BEAR-OWL", 'day-of-week field: unknown name "BEAR"'],
    ["0 0 1 Feb/2 *", 'month field: invalid item "Feb/2"'],
    ["0 0 * * Tues/x", 'day-of-week field: invalid step value in "Tues/x"'],
    ["0 0 1 3-Apr *", 'month field: invalid item "3-Apr"'],
    // `?` in day-of-month only: the rewrite refuses it alone in day-of-week, the field beside a name.
    ["? * * * *", 'minute field: "?" is allowed in day-of-month only'],
    ["0 ? * * *", 'hour field: "?" is allowed in day-of-month only'],
    ["0 0 1 ? *", 'month field: "?" is allowed in day-of-month only'],
    ["0 0 * * ?", 'invalid number in "?"'],
    ["0 0 * * Mon,?", 'day-of-week field: "?" is allowed in day-of-month only'],
    ["0 0 ?-5 * *", 'day-of-month field: invalid item "?-5"'],
    // Lists without holes.
    ["1,,2 * * * *", 'minute field: empty component in "1,,2"'],
    [",1 * * * *", 'minute field: empty component in ",1"'],
    ["0 0 1, * *", 'day-of-month field: empty component in "1,"'],
    // No shorthands, no L, W, #.
    ["@daily", 'expected 5 whitespace-separated cron fields, got 1: "@daily"'],
    ["0 0 L * *", 'day-of-month field: names are not allowed here: "L"'],
    ["0 0 15W * *", 'day-of-month field: invalid item "15W"'],
    ["0 0 * * 1#2", 'invalid number in "1#2"'],
    ["0 0 * * MON#2", 'mixed numeric and name notation is not supported in day-of-week field: "MON#2"'],
    ["0 0 * * 5L", 'mixed numeric and name notation is not supported in day-of-week field: "5L"'],
    // A field is one field of the grammar, whole (the crate would read on into the next one).
    ["1* 2 3 4 *", 'minute field: invalid item "1*"'],
    ["0 9-17, * * *", 'hour field: empty component in "9-17,"'],
    ["1-2-3 * * * *", 'minute field: invalid item "1-2-3"'],
    ['0 "9" * * *', 'hour field: invalid item "\\"9\\""'],
  ])("refuses %j: %s", (expression, message) => {
    const error = failure(expression);
    expect(error.name).toBe("CronExpressionError");
    expect(error.message).toBe(message);
  });

  it("is linear: long lists parse in one pass", () => {
    const minutes = Array.from({ length: 300_000 }, (_, index) => `${index % 60}`).join(",");
    expect(fieldsOf(`${minutes} * * * *`).minutes).toEqual(range(0, 59));
    const weekdays = Array.from({ length: 300_000 }, () => "mon").join(",");
    expect(fieldsOf(`0 0 * * ${weekdays}`).weekdays).toEqual([1]);
    expect(failure(`${"1 ".repeat(300_000)}`).message).toMatch(/^expected 5 whitespace-separated cron fields, got 300000: /);
  });
});

describe("CronSchedule.matches", () => {
  it("day-of-month AND day-of-week: both must match (the crate's rule, not Vixie cron's OR)", () => {
    const firstMonday = parseCronExpression("0 9 1 * 1");
    expect(firstMonday.matches(at({ hour: 9, day: 1, month: 6, weekday: 1 }))).toBe(true);
    expect(firstMonday.matches(at({ hour: 9, day: 1, month: 2, weekday: 0 }))).toBe(false);
    expect(firstMonday.matches(at({ hour: 9, day: 8, month: 6, weekday: 1 }))).toBe(false);
  });

  it("every field must hold", () => {
    const schedule = parseCronExpression("30 2 * 3 *");
    expect(schedule.matches(at({ minute: 30, hour: 2, month: 3 }))).toBe(true);
    expect(schedule.matches(at({ minute: 31, hour: 2, month: 3 }))).toBe(false);
    expect(schedule.matches(at({ minute: 30, hour: 3, month: 3 }))).toBe(false);
    expect(schedule.matches(at({ minute: 30, hour: 2, month: 4 }))).toBe(false);
  });

  it("a minute no clock shows never matches", () => {
    const everyMinute = parseCronExpression("* * * * *");
    expect(everyMinute.matches(at({ minute: 60 }))).toBe(false);
    expect(everyMinute.matches(at({ weekday: 7 }))).toBe(false);
    expect(everyMinute.matches(at({ minute: 1.5 }))).toBe(false);
  });
});
