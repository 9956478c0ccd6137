import { parseJsonPointer } from "../../operators/ingress/webhook/jsonPointer.js";
import { parsePromptTemplate, type PromptTemplate } from "../../operators/ingress/webhook/promptTemplate.js";
import type { Config } from "../config/index.js";
import type { DeliveryIdSource } from "./deliveryId.js";
import { RateWindow } from "./rateWindow.js";
import type { WebhookConversation } from "./webhookEvent.js";

/** One `[[webhooks.endpoints]]` as the config resolved it. */
export type WebhookEndpointConfig = Config["webhooks"]["endpoints"][number];

/** An endpoint ready to serve: its config read once (template and pointer parsed, header names lower-cased), and its rate window. */
export interface WebhookEndpoint {
  readonly name: string;
  readonly path: string;
  readonly auth: "hmac" | "bearer";
  readonly secret: string;
  /** hmac: the header the signature is read from, lower-cased as Node keys headers. */
  readonly signatureHeader: string;
  readonly conversation: WebhookConversation;
  readonly idSource: DeliveryIdSource;
  /** undefined: the default prompt (a header line and the body). */
  readonly template: PromptTemplate | undefined;
  readonly maxBodyBytes: number;
  readonly rate: RateWindow;
}

/**
 * The endpoint `config` describes. The config was validated, so its template and pointer parse;
 * `defaultMaxBodyBytes` is `[webhooks] max_body_bytes`, `now` the rate window's clock (ms).
 */
export function webhookEndpoint(config: WebhookEndpointConfig, defaultMaxBodyBytes: number, now: () => number): WebhookEndpoint {
  return {
    name: config.name,
    path: config.path,
    auth: config.auth,
    secret: config.secret,
    signatureHeader: (config.signature_header ?? "").toLowerCase(),
    conversation: { platform: config.platform, channel: config.channel, thread_id: config.thread_id },
    idSource: idSourceOf(config),
    template: config.prompt === undefined ? undefined : parsePromptTemplate(config.prompt),
    maxBodyBytes: config.max_body_bytes ?? defaultMaxBodyBytes,
    rate: new RateWindow(config.rate_per_minute, now),
  };
}

function idSourceOf(config: WebhookEndpointConfig): DeliveryIdSource {
  if (config.event_id_header !== undefined) return { kind: "header", name: config.event_id_header };
  if (config.event_id_pointer !== undefined) return { kind: "pointer", pointer: parseJsonPointer(config.event_id_pointer) };
  return { kind: "body" };
}
