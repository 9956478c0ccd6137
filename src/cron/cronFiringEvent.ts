import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { CronJob } from "./cronJob.js";

/** The sender every firing speaks as, upstream's `sender_id`. */
export const CRON_SENDER_ID = "openab-cron";

/**
 * One firing of `job` for the minute starting at `minute` (ms), as the event queued for its turn:
 * event id `cron:<key>:<minute ISO>` (so every process that fires the minute queues the same
 * message id, `platform:event_id`, and the bus keeps one), sender `openab-cron` named by the job's
 * `sender_name`, a bot, the job's message as the text, proactive when the job says so. The
 * conversation is the job's channel and `thread_id`; `cron` marks it as a firing
 * (`withCronFirings` runs it).
 */
export function cronFiringEvent(job: CronJob, minute: number, options: { readonly catchUp?: boolean } = {}): GatewayEvent {
  const { key } = job;
  const at = new Date(minute).toISOString();
  return {
    schema: "openab.gateway.event.v1",
    event_id: `cron:${key}:${at}`,
    timestamp: at,
    platform: job.platform,
    channel: { id: job.channel, type: "cron", thread_id: job.threadId ?? null },
    sender: { id: CRON_SENDER_ID, name: job.senderName, display_name: job.senderName, is_bot: true },
    content: { type: "text", text: job.message },
    mentions: [],
    message_id: "",
    proactive: job.proactive,
    origin: "cron",
    cron: { job: key, minute: at, ...(options.catchUp === true ? { catch_up: true as const } : {}) },
  };
}
