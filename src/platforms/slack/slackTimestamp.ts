/**
 * A Slack `ts` (`"1714204397.123456"`: seconds, a dot, microseconds) as the sender context's
 * timestamp, `YYYY-MM-DDTHH:MM:SS.mmmZ` (upstream's `slack_ts_to_iso8601`): milliseconds from the
 * first three fraction digits, padded (`.1` is 100 ms); no fraction is `.000`. Anything that is not
 * a ts reads as the epoch, as upstream.
 */
export function slackTsToIso8601(ts: string): string {
  const dot = ts.indexOf(".");
  const whole = dot < 0 ? ts : ts.slice(0, dot);
  const fraction = dot < 0 ? "" : ts.slice(dot + 1);
  if (!DIGITS.test(whole) || (dot >= 0 && !DIGITS.test(fraction))) return EPOCH;
  const millis = Number(whole) * 1000 + Number(fraction.slice(0, 3).padEnd(3, "0"));
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) ? EPOCH : date.toISOString();
}

const DIGITS = /^\d{1,15}$/;
const EPOCH = "1970-01-01T00:00:00.000Z";
