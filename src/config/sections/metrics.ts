import * as z from "zod";
import { hostPort } from "../fields.js";

/** `[metrics]`: the Prometheus endpoint. */
export const metricsSection = z
  .strictObject({
    // No metrics endpoint yet: refusing beats accepting it and serving nothing.
    enabled: z
      .boolean()
      .refine((on) => !on, { message: "true is not supported yet: turnstream serves no metrics endpoint (set enabled = false)" })
      .default(false),
    listen: hostPort().default("127.0.0.1:9464"),
  })
  .prefault({});
