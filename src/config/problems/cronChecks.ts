import { cronJobFaults, cronPlatformsOf } from "../cronJobFaults.js";
import type { ConfigProblem } from "../errors.js";
import type { Config } from "../schema.js";
import { type CronJobConfig, USERCRON_ONLY_KEYS } from "../sections/cron.js";

/**
 * `[[cron.jobs]]`, upstream's `validate_cronjobs`: each enabled job's schedule, timezone and
 * platform (which needs the platform sections, hence a check across sections), and the usercron
 * file's keys refused. A disabled job is not validated, as upstream. Every fault of every job is
 * reported, one line each, under the job's key (`cron.jobs[2].timezone`).
 */
export function cronJobProblems(config: Config): ConfigProblem[] {
  const platforms = cronPlatformsOf(config);
  return config.cron.jobs.flatMap((job, index) => {
    if (!job.enabled) return [];
    const faults = cronJobFaults(job, platforms).map((fault) => ({ path: `cron.jobs[${index}].${fault.key}`, message: fault.message }));
    return [...faults, ...usercronOnlyProblems(job, index)];
  });
}

function usercronOnlyProblems(job: CronJobConfig, index: number): ConfigProblem[] {
  return USERCRON_ONLY_KEYS.filter((key) => job[key] !== undefined).map((key) => ({
    path: `cron.jobs[${index}].${key}`,
    // Upstream's words (it refuses only disable_on_success, and reads the others without a use).
    message: `${key} is only supported in usercron [[jobs]], not baseline [[cron.jobs]]`,
  }));
}
