import * as z from "zod";
import { choice } from "../choice.js";
import { int, nonEmptyString, stringList, websocketUrl } from "../fields.js";

/** `[gateway]`: the OpenAB gateway connection. The section is optional; when present, `url` is required. */
export const gatewaySection = z.strictObject({
  url: websocketUrl(),
  platform: nonEmptyString()
    .transform((platform) => platform.toLowerCase())
    .default("telegram"),
  token: z.string().optional(),
  bot_username: z.string().optional(),
  // Left unset when absent: the trust gate derives "allow all" from the allow-lists being empty.
  allow_all_channels: z.boolean().optional(),
  allow_all_users: z.boolean().optional(),
  allowed_channels: stringList().default(() => []),
  allowed_users: stringList().default(() => []),
  allow_bot_messages: z.boolean().default(false),
  trusted_bot_ids: stringList().default(() => []),
  streaming: z.boolean().default(false),
  streaming_placeholder: z.boolean().default(true),
  telegram_rich_messages: z.boolean().default(true),
  message_processing_mode: choice({ values: ["per-message", "per-thread", "per-lane"] }).default("per-message"),
  max_buffered_messages: int(1).default(10),
  max_batch_tokens: int(1).default(24_000),
  gateway_ack_timeout_secs: int(1).default(12),
  max_frame_bytes: int(1024).default(4 * 1024 * 1024),
});
