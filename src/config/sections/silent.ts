import * as z from "zod";
import { nonEmptyString } from "../fields.js";

/** `[silent]`: replies that mean "say nothing" on the text path (issue 9). */
export const silentSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    // The whole reply (or a leading/trailing token) that delivers nothing.
    token: nonEmptyString().default("NO_REPLY"),
    // Proactive turns only: the whole reply or its final line means nothing to report.
    report_token: nonEmptyString().default("NOTHING_TO_REPORT"),
  })
  .prefault({});
