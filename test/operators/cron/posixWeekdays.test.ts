import { describe, expect, it } from "vitest";
import { CronExpressionError } from "../../../operators/cron/cronExpressionError.js";
import { translatePosixWeekdays } from "../../../operators/cron/posixWeekdays.js";

/** The error `translatePosixWeekdays(field)` throws. */
function failure(field: string): CronExpressionError {
  try {
    translatePosixWeekdays(field);
  } catch (error) {
    if (error instanceof CronExpressionError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(field)} was accepted`);
}

describe("translatePosixWeekdays (upstream's translate_dow_* vectors, reference §6.1)", () => {
  it.each([
    ["*", "*"],
    ["0", "1"],
    ["7", "1"],
    ["1", "2"],
    ["6", "7"],
    ["1-5", "2-6"],
    ["0-6", "*"],
    ["0-7", "*"],
    ["1-7", "*"],
    ["3-5", "4-6"],
    ["0,7", "1"],
    ["1,3,5", "2,4,6"],
    ["1,2,4,5", "2-3,5-6"],
    ["*/2", "1,3,5,7"],
    ["1-5/2", "2,4,6"],
    ["1/2", "2,4,6"],
    ["0/3", "1,4,7"],
    ["7/2", "1,3,5,7"],
    ["Mon-Fri", "Mon-Fri"],
  ])("%s → %s", (field, crate) => {
    expect(translatePosixWeekdays(field)).toBe(crate);
  });

  it.each(["1,Mon", "Mon,1", "1-Fri", "8", "0-8", "5-3", "", ",1", "1,", "*/0"])("refuses %j", (field) => {
    expect(failure(field)).toBeInstanceOf(CronExpressionError);
  });
});

describe("translatePosixWeekdays: upstream's error texts", () => {
  it.each([
    ["1,Mon", 'mixed numeric and name notation is not supported in day-of-week field: "1,Mon"'],
    ["Mon,1", 'mixed numeric and name notation is not supported in day-of-week field: "Mon,1"'],
    ["1-Fri", 'mixed numeric and name notation is not supported in day-of-week field: "1-Fri"'],
    ["Mon-Fri/2", 'mixed numeric and name notation is not supported in day-of-week field: "Mon-Fri/2"'],
    ["", "empty day-of-week field"],
    [",1", 'empty component in day-of-week field: ",1"'],
    ["1,", 'empty component in day-of-week field: "1,"'],
    ["1,,2", 'empty component in day-of-week field: "1,,2"'],
    ["*/0", 'step value cannot be zero in "*/0"'],
    ["1-5/00", 'step value cannot be zero in "1-5/00"'],
    ["*/", 'invalid step value in "*/"'],
    ["*/;", 'invalid step value in "*/;"'],
    ["1/2/3", 'invalid step value in "1/2/3"'],
    ["*/-1", 'invalid step value in "*/-1"'],
    ["*/4294967296", 'invalid step value in "*/4294967296"'],
    ["8", "day-of-week value out of range (0-7): 8"],
    ["99/2", "day-of-week value out of range (0-7): 99"],
    ["0-8", 'day-of-week value out of range (0-7) in "0-8"'],
    ["9-1", 'day-of-week value out of range (0-7) in "9-1"'],
    ["5-3", 'invalid range "5-3": start > end'],
    ["-3", 'invalid range start in "-3"'],
    ["*-3", 'invalid range start in "*-3"'],
    ["3-", 'invalid range end in "3-"'],
    ["1-2-3", 'invalid range end in "1-2-3"'],
    ["?", 'invalid number in "?"'],
    ["**", 'invalid number in "**"'],
    ["4294967296", 'invalid number in "4294967296"'],
    ["1\u00e9", 'invalid number in "1\u00e9"'],
    ['"', 'invalid number in "\\""'],
    ["\u0007", 'invalid number in "\\u{7}"'],
  ])("%j → %s", (field, message) => {
    const error = failure(field);
    expect(error.name).toBe("CronExpressionError");
    expect(error.message).toBe(message);
  });
});

describe("translatePosixWeekdays: Rust's number parsing and the step's counting", () => {
  it("takes a leading + as Rust's u32 parser does", () => {
    expect(translatePosixWeekdays("+1")).toBe("2");
    expect(translatePosixWeekdays("*/+2")).toBe("1,3,5,7");
    expect(translatePosixWeekdays("+1-+5")).toBe("2-6");
  });

  it("counts the step over the item's own list, from its first day, and keeps a step past the week", () => {
    expect(translatePosixWeekdays("2-7/2")).toBe("3,5,7"); // 2, 4, 6
    expect(translatePosixWeekdays("1-7/2")).toBe("1-2,4,6"); // 1, 3, 5, 7 = Sunday
    expect(translatePosixWeekdays("*/100")).toBe("1");
    expect(translatePosixWeekdays("7/1")).toBe("1");
    expect(translatePosixWeekdays("3/1")).toBe("4");
  });

  it("joins items and writes runs", () => {
    expect(translatePosixWeekdays("6,0")).toBe("1,7");
    expect(translatePosixWeekdays("1-2,5-6")).toBe("2-3,6-7");
    expect(translatePosixWeekdays("0-2,4-6")).toBe("1-3,5-7");
    expect(translatePosixWeekdays("6,5,4")).toBe("5-7");
  });

  it("passes any field with letters and no digit through, for the crate's grammar to judge", () => {
    expect(translatePosixWeekdays("sun,TUES-thurs")).toBe("sun,TUES-thurs");
    expect(translatePosixWeekdays("*/x")).toBe("*/x");
    expect(translatePosixWeekdays("Mon,*")).toBe("Mon,*");
  });

  it("is linear: a long list is translated in one pass", () => {
    const field = Array.from({ length: 100_000 }, (_, index) => `${index % 8}`).join(",");
    expect(translatePosixWeekdays(field)).toBe("*");
    expect(failure(`${field},`).message.length).toBeGreaterThan(field.length);
  });
});
