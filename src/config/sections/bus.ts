import * as z from "zod";
import { int, natsUrl, nonEmptyString, positiveNumber, subjectPrefix } from "../fields.js";

/** `[bus]`: the message bus between workers. No `url` means the embedded in-process bus. */
export const busSection = z
  .strictObject({
    url: natsUrl().optional(),
    token: z.string().optional(),
    user: z.string().optional(),
    password: z.string().optional(),
    /** Path to a NATS `.creds` file (JWT + nkey seed). */
    creds: nonEmptyString().optional(),
    partitions: int(1, 1024).default(16),
    prefix: subjectPrefix().default("turnstream"),
    /** Partition lease lifetime: the lease bucket's TTL. A dead worker's partitions are free after it. */
    lease_ttl_secs: positiveNumber().default(10),
    /** JetStream ack wait of the turn consumers; a held message is kept alive with `working()` every third of it. */
    ack_wait_secs: positiveNumber().default(30),
    /** JetStream duplicate window of the turn stream: the same `platform:event_id` within it is stored once. */
    duplicate_window_secs: positiveNumber().default(120),
    /** How long shared per-event state (delivery ledger, inbound dedupe) is kept in KV. */
    state_ttl_secs: positiveNumber().default(86_400),
  })
  .prefault({});
