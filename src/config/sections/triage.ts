import * as z from "zod";
import { ianaTimezone, int, quietHours } from "../fields.js";

/** `[triage]`: which proactive events may wake the chat. `quiet_hours` stays a string; parseQuietHours reads it. */
export const triageSection = z
  .strictObject({
    enabled: z.boolean().default(false),
    quiet_hours: quietHours().optional(),
    timezone: ianaTimezone().default("UTC"),
    cooldown_secs: int(0).default(900),
    daily_cap: int(0).default(8),
    dedupe_window_secs: int(0).default(3600),
  })
  .prefault({});
