import * as z from "zod";
import { hostPort } from "../fields.js";

/** `[metrics]`: the Prometheus endpoint. */
export const metricsSection = z
  .strictObject({
    /** `/metrics`, `/healthz` and `/readyz` on `listen`, in every role. */
    enabled: z.boolean().default(false),
    listen: hostPort().default("127.0.0.1:9464"),
  })
  .prefault({});
