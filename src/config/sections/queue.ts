import * as z from "zod";
import { choice } from "../choice.js";
import { int } from "../fields.js";

/** `[queue]`: what happens to messages that arrive while the session is busy with a turn. */
export const queueSection = z
  .strictObject({
    mode: choice({
      values: ["collect", "followup", "interrupt"],
      aliases: { coalesce: "collect", "follow-ups": "followup", followups: "followup", interrupts: "interrupt", abort: "interrupt" },
      // OpenClaw's default, but ACP has no way to add input to a running prompt turn.
      refused: {
        steer: "is not supported: ACP cannot inject into a running turn; use collect, followup or interrupt",
        steering: "is not supported: ACP cannot inject into a running turn; use collect, followup or interrupt",
      },
    }).default("collect"),
    debounce_ms: int(0).default(500),
    cap: int(1).default(20),
    drop: choice({
      values: ["old", "new", "summarize"],
      aliases: { oldest: "old", newest: "new", summary: "summarize" },
    }).default("summarize"),
  })
  .prefault({});
