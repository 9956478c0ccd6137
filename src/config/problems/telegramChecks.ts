import type { ConfigProblem } from "../errors.js";
import { splitHostPort } from "../fields.js";
import type { Config } from "../schema.js";

// `[telegram]`'s checks across keys and sections. Each names keys, never a value: two of the
// section's keys are secrets.

const POLLING = 'mode = "polling" asks Telegram for updates with getUpdates and receives no webhook requests';

/**
 * `mode = "polling"` with a webhook key: turnstream would register, listen for or check requests
 * that never come. (Without `mode`, any of these keys makes the section a webhook, so only an
 * explicit `polling` gets here.)
 */
export function telegramModeProblems(config: Config): ConfigProblem[] {
  const telegram = config.telegram;
  if (telegram === undefined || telegram.mode !== "polling") return [];
  const problems: ConfigProblem[] = [];
  if (telegram.webhook_url !== undefined) {
    problems.push({ path: "telegram.webhook_url", message: `is registered with setWebhook, and ${POLLING}: set mode = "webhook", or remove webhook_url` });
  }
  if (telegram.webhook_listen !== undefined) {
    problems.push({ path: "telegram.webhook_listen", message: `is where webhook requests are received, and ${POLLING}: set mode = "webhook", or remove webhook_listen` });
  }
  if (telegram.trusted_source_only) {
    problems.push({
      path: "telegram.trusted_source_only",
      message: `true checks where webhook requests come from, and ${POLLING}: set mode = "webhook", or trusted_source_only = false (TELEGRAM_TRUSTED_SOURCE_ONLY in the environment counts too)`,
    });
  }
  return problems;
}

const WILDCARDS = new Set(["0.0.0.0", "::"]);

/** Whether two listeners on these `host:port`s could not both bind: one port, and one host or a wildcard. */
export function listenersCollide(a: string, b: string): boolean {
  const first = splitHostPort(a);
  const second = splitHostPort(b);
  if (first === undefined || second === undefined || first.port === 0 || first.port !== second.port) return false;
  return first.host.toLowerCase() === second.host.toLowerCase() || WILDCARDS.has(first.host) || WILDCARDS.has(second.host);
}

/** The webhook listener needs an address it can bind: not the one `[metrics]` listens on in the same process. */
export function telegramListenProblems(config: Config): ConfigProblem[] {
  const listen = config.telegram?.webhook_listen;
  if (config.telegram?.mode !== "webhook" || listen === undefined || !config.metrics.enabled) return [];
  if (!listenersCollide(listen, config.metrics.listen)) return [];
  return [
    {
      path: "telegram.webhook_listen",
      message: `"${listen}" and metrics.listen ("${config.metrics.listen}") would take the same port in one process: give one of them another port`,
    },
  ];
}
