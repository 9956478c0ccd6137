import { CronExpressionError } from "./cronExpressionError.js";
import { rustDebugString as quoted } from "./rustDebugString.js";

// One field of a schedule in the grammar of the `cron` crate (0.16) that OpenAB hands it to: a comma
// list of `*`, `n`, `a-b`, a name, `name-name`, each but a lone name with an optional `/step`; `?`
// (= `*`) where the crate allows it. Values are checked against the field's range, as the crate does.

/** What one field accepts. Values are the crate's ordinals (day-of-week: 1 = Sunday … 7 = Saturday). */
export interface CronFieldSpec {
  /** As an error names it: `minute`, `hour`, `day-of-month`, `month`, `day-of-week`. */
  readonly label: string;
  readonly min: number;
  readonly max: number;
  /** Lower-case names and their ordinals, for the fields that take names. */
  readonly names?: ReadonlyMap<string, number>;
  /** `?` is allowed (day-of-month). */
  readonly any?: boolean;
}

const DAY_NAMES: ReadonlyArray<readonly [string, number]> = [
  ["sun", 1], ["sunday", 1], ["mon", 2], ["monday", 2], ["tue", 3], ["tues", 3], ["tuesday", 3],
  ["wed", 4], ["wednesday", 4], ["thu", 5], ["thurs", 5], ["thursday", 5], ["fri", 6], ["friday", 6],
  ["sat", 7], ["saturday", 7],
];

const MONTH_NAMES: ReadonlyArray<readonly [string, number]> = [
  ["jan", 1], ["january", 1], ["feb", 2], ["february", 2], ["mar", 3], ["march", 3], ["apr", 4], ["april", 4],
  ["may", 5], ["jun", 6], ["june", 6], ["jul", 7], ["july", 7], ["aug", 8], ["august", 8], ["sep", 9],
  ["september", 9], ["oct", 10], ["october", 10], ["nov", 11], ["november", 11], ["dec", 12], ["december", 12],
];

export const MINUTE_FIELD: CronFieldSpec = { label: "minute", min: 0, max: 59 };
export const HOUR_FIELD: CronFieldSpec = { label: "hour", min: 0, max: 23 };
export const DAY_OF_MONTH_FIELD: CronFieldSpec = { label: "day-of-month", min: 1, max: 31, any: true };
export const MONTH_FIELD: CronFieldSpec = { label: "month", min: 1, max: 12, names: new Map(MONTH_NAMES) };
/** After the POSIX rewrite (`translatePosixWeekdays`): the crate's numbering, and `?` refused. */
export const DAY_OF_WEEK_FIELD: CronFieldSpec = { label: "day-of-week", min: 1, max: 7, names: new Map(DAY_NAMES) };

const NUMBER = /^[0-9]+$/;
const NAME = /^[A-Za-z]+$/;

function fieldError(spec: CronFieldSpec, problem: string): CronExpressionError {
  return new CronExpressionError(`${spec.label} field: ${problem}`);
}

/** A number or a name as its ordinal, checked against the field's range. */
function ordinal(spec: CronFieldSpec, text: string, item: string): number {
  if (NUMBER.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) throw fieldError(spec, `${quoted(text)} is out of range (${spec.min}-${spec.max}) in ${quoted(item)}`);
    return value;
  }
  if (NAME.test(text)) {
    if (spec.names === undefined) throw fieldError(spec, `names are not allowed here: ${quoted(item)}`);
    const value = spec.names.get(text.toLowerCase());
    if (value === undefined) throw fieldError(spec, `unknown name ${quoted(text)}`);
    return value;
  }
  throw fieldError(spec, `invalid item ${quoted(item)}`);
}

/** The ordinals one item's base names before its step: `*`/`?`, a point, or a range. */
function baseOrdinals(spec: CronFieldSpec, base: string, item: string, stepped: boolean): [number, number] {
  if (base === "*" || (base === "?" && spec.any === true)) return [spec.min, spec.max];
  if (base === "?") throw fieldError(spec, `"?" is allowed in day-of-month only`);
  const dash = base.indexOf("-");
  if (dash < 0) {
    // The crate has no `name/step`: a period starts at a number, a range or `*`.
    if (stepped && !NUMBER.test(base)) throw fieldError(spec, `invalid item ${quoted(item)}`);
    const point = ordinal(spec, base, item);
    // `a/s` runs from a to the end of the field.
    return [point, stepped ? spec.max : point];
  }
  const startText = base.slice(0, dash);
  const endText = base.slice(dash + 1);
  // Both ends numbers or both names, as the crate's `range` and `named_range`.
  const bothNumbers = NUMBER.test(startText) && NUMBER.test(endText);
  const bothNames = NAME.test(startText) && NAME.test(endText);
  if (!bothNumbers && !bothNames) throw fieldError(spec, `invalid item ${quoted(item)}`);
  const start = ordinal(spec, startText, item);
  const end = ordinal(spec, endText, item);
  if (start > end) throw fieldError(spec, `invalid range ${quoted(item)}: start > end`);
  return [start, end];
}

/**
 * The ordinals one field allows, ascending. Throws CronExpressionError naming the field and the item.
 * Linear in the field: each item is scanned a constant number of times, and at most `max` values kept.
 */
export function parseCronField(spec: CronFieldSpec, field: string): number[] {
  const allowed = new Array<boolean>(spec.max + 1).fill(false);
  for (const item of field.split(",")) {
    if (item === "") throw fieldError(spec, `empty component in ${quoted(field)}`);
    const slash = item.indexOf("/");
    let step = 1;
    if (slash >= 0) {
      const stepText = item.slice(slash + 1);
      if (!NUMBER.test(stepText)) throw fieldError(spec, `invalid step value in ${quoted(item)}`);
      step = Number(stepText);
      if (step === 0) throw fieldError(spec, `step value cannot be zero in ${quoted(item)}`);
      if (step > spec.max) throw fieldError(spec, `step must be between 1 and ${spec.max} in ${quoted(item)}`);
    }
    const [start, end] = baseOrdinals(spec, slash >= 0 ? item.slice(0, slash) : item, item, slash >= 0);
    for (let value = start; value <= end; value += step) allowed[value] = true;
  }
  const values: number[] = [];
  for (let value = spec.min; value <= spec.max; value++) if (allowed[value] === true) values.push(value);
  return values;
}
