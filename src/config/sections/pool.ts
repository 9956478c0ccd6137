import * as z from "zod";
import { int, nonEmptyString, positiveNumber, stringTable } from "../fields.js";

/** `[pool]`: the ACP session pool. */
export const poolSection = z
  .strictObject({
    max_sessions: int(1).default(10),
    // Sessions one agent process hosts (ACP: many sessions per process); 1 is a process per conversation, as OpenAB.
    sessions_per_agent: int(1).default(1),
    session_ttl_hours: positiveNumber().default(4),
    // Resume every saved session at start-up, before taking events (one process only: see crossChecks).
    preload_persisted_sessions: z.boolean().default(false),
    prompt_hard_timeout_secs: int(1).default(1800),
    liveness_check_secs: int(1).default(30),
    hung_grace_secs: int(0).default(120),
    // configId → value, applied after each session/new.
    default_config_options: stringTable().default(() => ({})),
    shutdown_grace_secs: int(0).default(30),
    // Where ACP session ids are kept across restarts; unset: $HOME/.turnstream.
    state_dir: nonEmptyString().optional(),
  })
  .prefault({});
