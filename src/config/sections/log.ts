import * as z from "zod";
import { choice } from "../choice.js";

/** `[log]`: pino's level and whether to pretty-print. */
export const logSection = z
  .strictObject({
    level: choice({ values: ["trace", "debug", "info", "warn", "error", "fatal", "silent"] }).default("info"),
    pretty: z.boolean().default(false),
  })
  .prefault({});
