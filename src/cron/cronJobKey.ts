import { createHash } from "node:crypto";
/** What a job's key is made of: a `CronJob`'s fields of the same names. */
export interface CronJobIdentity {
  readonly id?: string;
  readonly platform: string;
  readonly channel: string;
  readonly threadId?: string;
  /** The schedule as written. */
  readonly expression: string;
  readonly timezone: string;
  readonly message: string;
  readonly senderName: string;
  readonly proactive: boolean;
}

/**
 * A job's stable key, the same in every process that holds the same job: its usercron `id` when
 * it has one, else the first 16 hex digits of a SHA-256 over what the job does (where, when, what
 * it says, as whom). The key names the job's firings (`cron:<key>:<minute>`), so processes firing
 * the same minute queue one event; a job edited into another does something else and gets
 * another key. Its position in the file is not part of it: reordering jobs changes nothing.
 */
export function cronJobKey(job: CronJobIdentity): string {
  if (job.id !== undefined) return `id-${job.id}`;
  const what = [job.platform, job.channel, job.threadId ?? null, job.expression, job.timezone, job.message, job.senderName, job.proactive];
  return createHash("sha256").update(JSON.stringify(what)).digest("hex").slice(0, 16);
}
