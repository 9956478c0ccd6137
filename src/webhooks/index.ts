// The webhooks module's door: the listener, how to build it from a config, and its error.
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { type Submit, WebhookListener } from "./webhookListener.js";

export { WebhookListenError } from "./errors.js";
export { WEBHOOK_LISTENER_LIMITS, WebhookListener, type Submit, type SubmittedEvent, type WebhookClock, type WebhookListenerLimits, type WebhookListenerOptions } from "./webhookListener.js";
export type { WebhookRefusalReason } from "./webhookRefusals.js";

/**
 * The listener `[webhooks]` asks for, or undefined when it has no endpoints (nothing listens).
 * `submit` is the broker's: the process must take events (role `all` or `edge`).
 */
export function webhookListenerFor(config: Config, deps: { readonly submit: Submit; readonly logger: Logger }): WebhookListener | undefined {
  if (config.webhooks.endpoints.length === 0) return undefined;
  return new WebhookListener({ webhooks: config.webhooks, submit: deps.submit, logger: deps.logger });
}
