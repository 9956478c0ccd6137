import { IANAZone } from "luxon";
import type { CronSchedule, LocalMinute } from "./cronExpression.js";
import { CronTimezoneError } from "./cronTimezoneError.js";
import { localMinuteOf } from "./localMinute.js";
import { TZDB_NAMES } from "./tzdbNames.js";

export { CronTimezoneError } from "./cronTimezoneError.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * How far back a zone's clock may have been turned for a wall time to be shown twice: the largest
 * backward jump the tz database has had since 1970 is 2 h (Antarctica/Troll).
 */
const LOOKBACK_MS = 3 * HOUR_MS;

/** `nextFiring`'s default search: a year, a leap day, and a day for the zone's offset. */
export const NEXT_FIRING_HORIZON_MS = 368 * DAY_MS;

/** Whether `name` is a timezone a cron job may name: an IANA name chrono-tz knows, spelled exactly. */
export function isCronTimezone(name: string): boolean {
  return TZDB_NAMES.has(name) && IANAZone.create(name).isValid;
}

function zoneOf(timezone: string): IANAZone {
  if (!isCronTimezone(timezone)) throw new CronTimezoneError(timezone);
  return IANAZone.create(timezone);
}

const offsetMs = (zone: IANAZone, at: number) => zone.offset(at) * MINUTE_MS;
const floorMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/**
 * Whether the wall time the zone shows at `at` (with `offset`) was shown before, the clock having
 * been turned back since (fall back): then it is a repeat, and a repeat never fires.
 */
function shownBefore(zone: IANAZone, at: number, offset: number): boolean {
  const before = offsetMs(zone, at - LOOKBACK_MS);
  if (before <= offset) return false;
  // The clock went back by `before - offset`: the same wall time was shown that long ago, if the
  // turn came after it.
  return offsetMs(zone, at - (before - offset)) === before;
}

/**
 * Whether the job fires for the UTC minute starting at `minuteMs` (a multiple of 60 000): upstream's
 * `should_fire` — the schedule holds the zone's local minute — except around DST: a local time the
 * clock skips (spring forward) never fires, and a local minute shown twice (fall back) fires once,
 * at its first showing; never a throw. Throws CronTimezoneError for a name `isCronTimezone` refuses.
 */
export function firesAt(schedule: CronSchedule, timezone: string, minuteMs: number): boolean {
  const zone = zoneOf(timezone);
  const at = floorMinute(minuteMs);
  const offset = offsetMs(zone, at);
  return schedule.matches(localMinuteOf(at + offset)) && !shownBefore(zone, at, offset);
}

const dayMatches = (schedule: CronSchedule, local: LocalMinute) =>
  schedule.fields.days.includes(local.day) && schedule.fields.months.includes(local.month) && schedule.fields.weekdays.includes(local.weekday);

/** The first wall minute at or after `local` (at `wallMinute`) that may match, this day, or the next day's start. */
function nextCandidate(schedule: CronSchedule, local: LocalMinute, wallMinute: number): number {
  const dayStart = Math.floor(wallMinute / DAY_MS) * DAY_MS;
  const nextDay = dayStart + DAY_MS;
  if (!dayMatches(schedule, local)) return nextDay;
  const { hours, minutes } = schedule.fields;
  if (hours.includes(local.hour)) {
    const minute = minutes.find((m) => m >= local.minute);
    if (minute !== undefined) return dayStart + local.hour * HOUR_MS + minute * MINUTE_MS;
  }
  const hour = hours.find((h) => h > local.hour);
  return hour === undefined ? nextDay : dayStart + hour * HOUR_MS + (minutes[0] as number) * MINUTE_MS;
}

/**
 * An instant after `at` no later than the first one showing wall time `target` or later — where to
 * look next. Undershooting is harmless (the walk looks again); overshooting could skip a firing, so
 * a clock that gains time on the way (spring forward) is accounted for, and a target inside the gap
 * lands on the turn itself.
 */
function instantBefore(zone: IANAZone, at: number, offset: number, target: number): number {
  const unchanged = target - offset;
  const later = offsetMs(zone, unchanged);
  if (later <= offset) return Math.max(floorMinute(unchanged), at + MINUTE_MS);
  const shifted = target - later;
  if (offsetMs(zone, shifted) === later) return Math.max(floorMinute(shifted), at + MINUTE_MS);
  // `target` is a wall time the clock skips: find the turn, the first instant on the new offset.
  let low = floorMinute(shifted);
  let high = floorMinute(unchanged);
  while (high - low > MINUTE_MS) {
    const middle = floorMinute((low + high) / 2);
    if (offsetMs(zone, middle) === later) high = middle;
    else low = middle;
  }
  return Math.max(high, at + MINUTE_MS);
}

/**
 * The first minute strictly after `afterMs` at which `firesAt` holds, searching up to `horizonMs`
 * ahead (default `NEXT_FIRING_HORIZON_MS`); undefined when there is none. Walks the zone's wall clock
 * by day, hour and minute, skipping what the schedule's fields rule out: a few steps a day, never
 * minute by minute. Throws CronTimezoneError as `firesAt` does.
 */
export function nextFiring(schedule: CronSchedule, timezone: string, afterMs: number, horizonMs: number = NEXT_FIRING_HORIZON_MS): number | undefined {
  const zone = zoneOf(timezone);
  const end = afterMs + horizonMs;
  let at = floorMinute(afterMs) + MINUTE_MS;
  while (at <= end) {
    const offset = offsetMs(zone, at);
    const wallMinute = floorMinute(at + offset);
    const local = localMinuteOf(wallMinute);
    const target = nextCandidate(schedule, local, wallMinute);
    if (target !== wallMinute) at = instantBefore(zone, at, offset, target);
    else if (shownBefore(zone, at, offset)) at += MINUTE_MS;
    else return at;
  }
  return undefined;
}
