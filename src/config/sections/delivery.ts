import * as z from "zod";
import { choice } from "../choice.js";
import { int, nonEmptyString } from "../fields.js";

/**
 * `human_delay` (OpenClaw's `humanDelay`): `"off"`, `"natural"` (800–2500 ms) or a custom range
 * `{ min_ms, max_ms }`, waited before each message of a reply after the first.
 */
const humanDelay = z.union([
  choice({ values: ["off", "natural"] }),
  z.strictObject({ min_ms: int(0).optional(), max_ms: int(0).optional() }),
]);

/** `[delivery.blocks.coalesce]`: small blocks that come close together become one message. */
const coalesceSection = z
  .strictObject({
    idle_ms: int(0, 5000).default(1000),
    /** Default: `blocks.min_chars`. */
    min_chars: int(0).optional(),
    /** Default and ceiling: `blocks.max_chars` (itself clamped to the platform limit). */
    max_chars: int(1).optional(),
  })
  .prefault({});

/** `[delivery.blocks]` (OpenClaw's block streaming): a text reply sent as several messages as it is written. */
const blocksSection = z
  .strictObject({
    enabled: z.boolean().default(false),
    break: choice({ values: ["text_end", "message_end"] }).default("text_end"),
    min_chars: int(1).default(800),
    max_chars: int(1).default(1200),
    break_preference: choice({ values: ["paragraph", "newline", "sentence"] }).default("paragraph"),
    coalesce: coalesceSection,
  })
  .prefault({});

/** `[delivery]`: how a turn's reply reaches the chat (one text, or planned bubbles). */
export const deliverySection = z
  .strictObject({
    mode: choice({
      values: ["text", "structured", "sequential"],
      aliases: { plain: "text", off: "text", bubbles: "structured" },
    }).default("text"),
    schema: nonEmptyString().default("openab.turn.v1"),
    max_bubbles: int(1).default(4),
    max_bubble_chars: int(0).default(1200),
    bubble_delay_ms: int(0).default(400),
    on_parse_error: choice({
      values: ["fallback_text", "error_message", "silent"],
      aliases: { fallback: "fallback_text", text: "fallback_text", error: "error_message", drop: "silent" },
    }).default("fallback_text"),
    parse_error_text: z.string().default("⚠️ something went wrong composing that reply"),
    // turnstream's own: the MCP `reply` tool offered to every session in structured and sequential modes.
    reply_tool: choice({ values: ["auto", "off"] }).default("auto"),
    reply_tool_instructions: z.boolean().default(true),
    // turnstream's own, after OpenClaw: pacing, quoting and a prefix for every mode.
    human_delay: humanDelay.default("off"),
    /** Unset: OpenAB's rule (only a `[[reply_to:…]]` directive quotes, on the first message). */
    reply_to_mode: choice({ values: ["off", "first", "all"] }).optional(),
    response_prefix: z.string().default(""),
    // turnstream's own: the largest file a turn sends; unset, each platform's own limit.
    max_file_bytes: int(1).optional(),
    blocks: blocksSection,
  })
  .prefault({});
