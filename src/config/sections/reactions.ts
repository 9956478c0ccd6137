import * as z from "zod";
import { choice } from "../choice.js";
import { int, stringTable } from "../fields.js";

/** `[reactions.emojis]`: one emoji per turn state. */
const emojis = z
  .strictObject({
    queued: z.string().default("👀"),
    thinking: z.string().default("🤔"),
    tool: z.string().default("🔥"),
    coding: z.string().default("👨‍💻"),
    web: z.string().default("⚡"),
    done: z.string().default("🆗"),
    error: z.string().default("😱"),
  })
  .prefault({});

/** `[reactions.timing]`: debounce and stall timers, in milliseconds. */
const timing = z
  .strictObject({
    debounce_ms: int(0).default(700),
    stall_soft_ms: int(0).default(10_000),
    stall_hard_ms: int(0).default(30_000),
    done_hold_ms: int(0).default(1500),
    error_hold_ms: int(0).default(2500),
  })
  .prefault({});

/** `[reactions]`: the status emoji on the user's message while a turn runs. */
export const reactionsSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    remove_after_reply: z.boolean().default(false),
    tool_display: choice({
      values: ["full", "compact", "none"],
      aliases: { off: "none", hidden: "none" },
    }).default("full"),
    narration_display: z.boolean().default(false),
    emojis,
    timing,
    // emoji → text, for platforms without reactions: not built, so a non-empty table is refused.
    mapping: stringTable()
      .default(() => ({}))
      .refine((table) => Object.keys(table).length === 0, {
        message: "is not supported yet: reactions show as emoji where the platform takes them, and as nothing elsewhere (remove [reactions.mapping])",
      }),
  })
  .prefault({});
