import * as z from "zod";
import { choice } from "../choice.js";
import { expecting } from "../problems/expected.js";
import { int, nonEmptyString, stringList, websocketUrl } from "../fields.js";

/** `[gateway]`: the OpenAB gateway connection. The section is optional; when present, `url` is required. */

/**
 * The largest WebSocket message the gateway connector reads (its ws `maxPayload`): a bigger one
 * closes the connection, so `max_frame_bytes` may not exceed it. Frames between the two are read,
 * then handled politely.
 */
export const FRAME_CEILING_BYTES = 128 * 1024 * 1024;

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
  // Edit one message in place while a text turn streams (OpenAB); text mode only (crossChecks).
  streaming: z.boolean().default(false),
  streaming_placeholder: z.boolean().default(true),
  // turnstream converts no Markdown tables for any platform: `true` (Telegram keeps them) is what it does.
  telegram_rich_messages: z
    .boolean()
    .refine((on) => on, { message: "false is not supported: turnstream converts no Markdown tables, so replies keep their tables as written (set telegram_rich_messages = true)" })
    .default(true),
  // Upstream's dispatcher: how arrivals are grouped into turns, and how big one batch may be. How
  // they combine with `[queue]` is checked across sections (`batchingProblems`).
  message_processing_mode: choice({ values: ["per-message", "per-thread", "per-lane"] }).default("per-message"),
  max_buffered_messages: int(1).default(10),
  max_batch_tokens: int(1).default(24_000),
  gateway_ack_timeout_secs: int(1).default(12),
  // Without a capability handshake an ack may never come (upstream: 5 s, then counted as sent).
  legacy_ack_timeout_secs: int(1).default(5),
  max_frame_bytes: expecting(
    z.int().min(1024).max(FRAME_CEILING_BYTES),
    `an integer from 1024 to ${FRAME_CEILING_BYTES} (128 MiB: the largest frame the gateway connector reads)`,
  ).default(4 * 1024 * 1024),
  // A ping this often; two missed pongs abandon the connection (0: no pings). Seconds, fractions allowed.
  keepalive_secs: expecting(z.number().min(0), "a number ≥ 0 (0 disables the keepalive)").default(30),
});
