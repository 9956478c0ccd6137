import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { type CronJob, type CronJobSource, cronJobOf } from "./cronJob.js";

/** A job's `thread_id = ""`, taken as absent: upstream would post to an empty id and fail every firing. */
export const BLANK_THREAD_ID_LOG = "cronjob thread_id is empty, treated as absent";

/** config.toml's enabled `[[cron.jobs]]` as the scheduler's jobs, in file order (`index` counts the disabled ones too). */
export function cronJobsOf(config: Pick<Config, "cron">): CronJob[] {
  return config.cron.jobs.flatMap((entry, index) => (entry.enabled ? [cronJobOf(entry, "config.toml", index)] : []));
}

/** Logs each job whose `thread_id` was `""` (warn, once per job and load). */
export function reportBlankThreadIds(indexes: readonly number[], source: CronJobSource, logger: Logger): void {
  for (const index of indexes) logger.warn({ reason: "blank_thread_id", source, index }, BLANK_THREAD_ID_LOG);
}
