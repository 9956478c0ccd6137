import { ConfigError, type Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { WebhookListenError, webhookListenerFor, type Submit } from "../webhooks/index.js";
import type { EventSource } from "./brokerParts.js";
import { BrokerStoppedError } from "./errors.js";

/**
 * `[webhooks]` as one of the broker's sources: the listener is bound once the broker runs (its
 * deliveries are queued through `submit`, which takes events only then) and closed first when it
 * stops. An address it cannot bind stops start-up with one line naming `webhooks.listen`.
 * Undefined when no endpoint is configured.
 */
export function webhookSource(config: Config, logger: Logger): EventSource | undefined {
  let submit: Submit | undefined;
  const listener = webhookListenerFor(config, { submit: (event) => (submit === undefined ? Promise.reject(new BrokerStoppedError()) : submit(event)), logger });
  if (listener === undefined) return undefined;
  return {
    async start(broker) {
      submit = broker;
      try {
        await listener.start();
      } catch (err) {
        if (!(err instanceof WebhookListenError)) throw err;
        throw new ConfigError([{ path: "webhooks.listen", message: `${config.webhooks.listen} cannot be listened on${err.code === undefined ? "" : ` (${err.code})`}` }], { cause: err });
      }
    },
    close: () => listener.close(),
  };
}
