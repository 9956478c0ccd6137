import * as z from "zod";
import { int, intTable } from "../fields.js";

/** `[inbound]`: dedupe and debounce of arriving messages, before they become turns. */
export const inboundSection = z
  .strictObject({
    dedupe_ttl_secs: int(0).default(1200),
    dedupe_max: int(0).default(5000),
    debounce_ms: int(0).default(0),
    // platform → debounce_ms, overriding the global value for that platform.
    debounce_by_platform: intTable(0).default(() => ({})),
    // Group messages that did not mention the bot, kept per conversation for the next turn's prompt
    // (0: none). At most 1,000: every kept message rewrites the conversation's whole record, and
    // the byte budget (HISTORY_MAX_BYTES) would drop the oldest of more anyway (docs/config-reference.md).
    history_limit: int(0, 1000).default(0),
  })
  .prefault({});
