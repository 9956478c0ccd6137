// One parser for `quiet_hours`: the config validates with it at start-up, triage resolves with it.
/** A daily quiet window in minutes since local midnight; start is quiet, end is not. */
export interface QuietHours {
  readonly startMinute: number;
  readonly endMinute: number;
}

/** A `quiet_hours` value that is not `"HH:MM-HH:MM"` with 24-hour times. */
export class QuietHoursError extends Error {
  override readonly name = "QuietHoursError";
  constructor(
    readonly text: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${JSON.stringify(text)} is not allowed; expected "HH:MM-HH:MM" with 24-hour times (${reason})`, options);
  }
}

// Upstream accepts unpadded parts ("9:5") and spaces around the dash, so an OpenAB file carries over.
const TIME = /^(\d{1,2}):(\d{1,2})$/;

function minuteOfDay(text: string, side: string): number {
  const match = TIME.exec(side);
  if (match === null) throw new QuietHoursError(text, `${JSON.stringify(side)} is not HH:MM`);
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  if (hour > 23) throw new QuietHoursError(text, `hour out of range in ${JSON.stringify(side)}`);
  if (minute > 59) throw new QuietHoursError(text, `minute out of range in ${JSON.stringify(side)}`);
  return hour * 60 + minute;
}

/**
 * Parses `"HH:MM-HH:MM"` (e.g. `"22:00-07:00"`, which wraps midnight). Equal ends give an empty
 * window, not a full day. Throws QuietHoursError.
 */
export function parseQuietHours(text: string): QuietHours {
  const dash = text.indexOf("-");
  if (dash < 0) throw new QuietHoursError(text, "no \"-\" between the two times");
  return {
    startMinute: minuteOfDay(text, text.slice(0, dash).trim()),
    endMinute: minuteOfDay(text, text.slice(dash + 1).trim()),
  };
}

/**
 * Whether the local minute-of-day `minute` (0-1439) is quiet. Half-open: the start minute is quiet,
 * the end minute is not; a window whose start is after its end wraps midnight; equal ends are an
 * empty window (never quiet), because silencing forever must take `enabled = false`.
 */
export function quietHoursContain(window: QuietHours, minute: number): boolean {
  const { startMinute: start, endMinute: end } = window;
  if (start === end) return false;
  if (start < end) return minute >= start && minute < end;
  return minute >= start || minute < end;
}
