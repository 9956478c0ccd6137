import type { LocalMinute } from "./cronExpression.js";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * The local minute a wall-clock time falls in, given as milliseconds since 1970-01-01T00:00 of that
 * wall clock (an instant plus its zone offset). Plain arithmetic, no Date: the civil date from the
 * day number is Howard Hinnant's `civil_from_days`.
 */
export function localMinuteOf(wallMs: number): LocalMinute {
  const days = Math.floor(wallMs / DAY_MS);
  const minuteOfDay = Math.floor((wallMs - days * DAY_MS) / MINUTE_MS);
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  return {
    minute: minuteOfDay % 60,
    hour: Math.floor(minuteOfDay / 60),
    day: dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1,
    month: monthIndex < 10 ? monthIndex + 3 : monthIndex - 9,
    // 1970-01-01 was a Thursday.
    weekday: (((days + 4) % 7) + 7) % 7,
  };
}
