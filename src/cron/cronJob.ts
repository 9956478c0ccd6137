import { type CronSchedule, parseCronExpression } from "../../operators/cron/cronExpression.js";
import type { CronJobConfig } from "../config/sections/cron.js";
import { cronJobKey } from "./cronJobKey.js";

/** Which file a job came from, in upstream's words (the usercron file is `cronjob.toml` whatever its name). */
export type CronJobSource = "config.toml" | "cronjob.toml";

/** The usercron file's `disable_on_success*` keys of a job: run `command` before each firing; its success disables the job. */
export interface DisableOnSuccess {
  readonly command: string;
  /** Searched for in the command's stdout and stderr. */
  readonly match: string;
  /** At least 1; default 60. */
  readonly timeoutSecs: number;
  readonly workingDir?: string;
}

/**
 * One job the scheduler runs, whichever file it came from: enabled, validated, every default
 * filled. config.toml's jobs (`cronJobsOf`) and the usercron file's (`UsercronFile`) both become
 * this, since the scheduler treats them alike.
 */
export interface CronJob {
  /** Its stable key (`cronJobKey`), computed once: its firings' event ids and its `catch_up` mark. */
  readonly key: string;
  readonly source: CronJobSource;
  /** Its position in its file's list, disabled jobs counted (`cron.jobs[<index>]`, the usercron file's `index`). */
  readonly index: number;
  /** The schedule as written, for logs. */
  readonly expression: string;
  readonly schedule: CronSchedule;
  /** An IANA name the schedule is read in. */
  readonly timezone: string;
  readonly platform: string;
  readonly channel: string;
  /** Post into this thread; absent: a thread is created from each firing's post. */
  readonly threadId?: string;
  /** The prompt. */
  readonly message: string;
  readonly senderName: string;
  /** The firing is a proactive event, which `[triage]` judges. */
  readonly proactive: boolean;
  /** The usercron file's stable id of the job. */
  readonly id?: string;
  readonly disableOnSuccess?: DisableOnSuccess;
}

/** Upstream's default for `disable_on_success_timeout_secs`. */
export const DEFAULT_DISABLE_ON_SUCCESS_TIMEOUT_SECS = 60;

/**
 * A validated entry as the scheduler's job. Its schedule must parse (config.toml's jobs passed the
 * config's checks, the usercron file's `usercronJobsOf`'s), else this throws `CronExpressionError`.
 */
export function cronJobOf(entry: CronJobConfig, source: CronJobSource, index: number): CronJob {
  const command = entry.disable_on_success;
  const match = entry.disable_on_success_match;
  const workingDir = entry.disable_on_success_working_dir;
  const job: Omit<CronJob, "key"> = {
    source,
    index,
    expression: entry.schedule,
    schedule: parseCronExpression(entry.schedule),
    timezone: entry.timezone,
    platform: entry.platform,
    channel: entry.channel,
    ...(entry.thread_id === undefined ? {} : { threadId: entry.thread_id }),
    message: entry.message,
    senderName: entry.sender_name,
    proactive: entry.proactive,
    ...(entry.id === undefined ? {} : { id: entry.id }),
    ...(command === undefined || match === undefined
      ? {}
      : {
          disableOnSuccess: {
            command,
            match,
            timeoutSecs: Math.max(1, entry.disable_on_success_timeout_secs ?? DEFAULT_DISABLE_ON_SUCCESS_TIMEOUT_SECS),
            ...(workingDir === undefined ? {} : { workingDir }),
          },
        }),
  };
  return { key: cronJobKey(job), ...job };
}
