import * as z from "zod";
import { int, natsUrl, subjectPrefix } from "../fields.js";

/** `[bus]`: the message bus between workers. No `url` means the embedded in-process bus. */
export const busSection = z
  .strictObject({
    url: natsUrl().optional(),
    token: z.string().optional(),
    user: z.string().optional(),
    password: z.string().optional(),
    partitions: int(1, 1024).default(16),
    prefix: subjectPrefix().default("turnstream"),
  })
  .prefault({});
