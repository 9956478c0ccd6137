// cron: OpenAB's schedule syntax and when a job fires, pure; the scheduler's clock drives cronMinutes.
export { CronExpressionError, parseCronExpression, type CronFields, type CronSchedule, type LocalMinute } from "./cronExpression.js";
export { translatePosixWeekdays } from "./posixWeekdays.js";
export { CronTimezoneError, firesAt, isCronTimezone, NEXT_FIRING_HORIZON_MS, nextFiring } from "./cronTime.js";
export { cronMinutes } from "./cronMinutes.js";
