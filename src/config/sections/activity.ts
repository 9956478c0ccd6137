import * as z from "zod";

/**
 * `[activity]` (turnstream's own): one transient message listing a turn's tool calls while they
 * run, deleted once the answer is delivered. Off by default, so an OpenAB config behaves as before.
 */
export const activitySection = z
  .strictObject({
    enabled: z.boolean().default(false),
  })
  .prefault({});
