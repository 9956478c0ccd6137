import * as z from "zod";
import { choice } from "../choice.js";
import { int, nonEmptyString } from "../fields.js";

/**
 * `[cron]` and `[[cron.jobs]]`: OpenAB's scheduler config (`CronConfig`, `CronJobConfig`), every
 * key with upstream's default, so an OpenAB `[cron]` drops in; then turnstream's `catch_up` and
 * each job's `proactive`. The types are checked here; what a job's values mean (schedule,
 * timezone, platform) is checked across sections, for enabled jobs only, as upstream
 * (`cronJobFaults`, `problems/cronChecks.ts`). The usercron file's `[[jobs]]` take the same fields
 * (`usercronFileSchema`).
 */

export const catchUpModes = ["none", "last"] as const;
/** After minutes the scheduler did not run: fire nothing for them (upstream), or each job's latest one once. */
export type CatchUp = (typeof catchUpModes)[number];

/** The keys only the usercron file takes (newer upstream); in config.toml an enabled job refuses them. */
export const USERCRON_ONLY_KEYS = ["id", "disable_on_success", "disable_on_success_match", "disable_on_success_timeout_secs", "disable_on_success_working_dir"] as const;

/** One job as the file gives it, defaults filled; `thread_id = ""` already taken as absent. */
export interface CronJobConfig {
  readonly enabled: boolean;
  /** Five fields, POSIX day-of-week (`parseCronExpression`). */
  readonly schedule: string;
  readonly channel: string;
  /** The prompt. */
  readonly message: string;
  readonly platform: string;
  readonly sender_name: string;
  /** Post into this existing thread; absent: a thread is created from each firing's post. */
  readonly thread_id?: string;
  /** An IANA name, exact (`isCronTimezone`). */
  readonly timezone: string;
  /** turnstream's: the firing is a proactive event, which `[triage]` judges. */
  readonly proactive: boolean;
  readonly id?: string;
  readonly disable_on_success?: string;
  readonly disable_on_success_match?: string;
  readonly disable_on_success_timeout_secs?: number;
  readonly disable_on_success_working_dir?: string;
}

export interface CronConfig {
  /** The usercron file is read only when this is true and `usercron_path` is set (`usercronPathOf`). */
  readonly usercron_enabled: boolean;
  readonly usercron_path?: string;
  readonly catch_up: CatchUp;
  readonly jobs: readonly CronJobConfig[];
  /** Indexes of the jobs whose `thread_id` was `""` and is taken as absent, for the scheduler to log (`reportBlankThreadIds`). */
  readonly blank_thread_ids: readonly number[];
}

/** The fields of a job in either file, types and defaults as upstream. */
const jobFields = {
  enabled: z.boolean().default(true),
  schedule: z.string(),
  channel: z.string(),
  message: z.string(),
  platform: z.string().default("discord"),
  sender_name: z.string().default("openab-cron"),
  thread_id: z.string().optional(),
  timezone: z.string().default("UTC"),
  proactive: z.boolean().default(false),
  // Usercron-only (newer upstream); the timeout's default (60) and floor (1) are applied where it is used.
  id: z.string().optional(),
  disable_on_success: z.string().optional(),
  disable_on_success_match: z.string().optional(),
  disable_on_success_timeout_secs: int(0).optional(),
  disable_on_success_working_dir: z.string().optional(),
};

/** A job with its `thread_id = ""` taken as absent (upstream would post to an empty id and fail every time). */
export function withoutBlankThreadId<J extends { readonly thread_id?: string | undefined }>(job: J): J {
  if (job.thread_id !== "") return job;
  const { thread_id: _blank, ...rest } = job;
  return rest as J;
}

/** `[[cron.jobs]]`: strict, like every turnstream table. */
export const cronJobKeys = z.strictObject(jobFields);

/** The usercron file: `[[jobs]]` with the same fields; unknown keys, there and at the top, ignored as upstream. */
export const usercronFileSchema = z.object({ jobs: z.array(z.object(jobFields)).default(() => []) });

const cronKeys = z.strictObject({
  usercron_enabled: z.boolean().default(false),
  usercron_path: nonEmptyString().optional(),
  jobs: z.array(cronJobKeys).default(() => []),
  // turnstream's own.
  catch_up: choice({ values: catchUpModes }).default("none"),
});

function resolveCron(keys: z.output<typeof cronKeys>): CronConfig {
  const blank = keys.jobs.flatMap((job, index) => (job.thread_id === "" ? [index] : []));
  return {
    usercron_enabled: keys.usercron_enabled,
    ...(keys.usercron_path === undefined ? {} : { usercron_path: keys.usercron_path }),
    catch_up: keys.catch_up,
    jobs: keys.jobs.map(withoutBlankThreadId),
    blank_thread_ids: blank,
  };
}

/** `[cron]`: optional; absent means no jobs and no usercron file. */
export const cronSection = cronKeys.transform(resolveCron).prefault({});
