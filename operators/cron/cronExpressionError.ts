/**
 * A cron schedule turnstream cannot run. The message is the reason alone, in upstream's words where
 * OpenAB has its own (`expected 5 whitespace-separated cron fields, got 6: "…"`, the day-of-week
 * rewrite's errors); the caller adds which job and which key.
 */
export class CronExpressionError extends Error {
  override readonly name = "CronExpressionError";
}
