import * as z from "zod";
import { hostPort } from "../fields.js";

/** `[dev_gateway]`: a local gateway for trying the broker without a chat platform. */
export const devGatewaySection = z
  .strictObject({
    listen: hostPort().default("127.0.0.1:8765"),
    token: z.string().optional(),
  })
  .prefault({});
