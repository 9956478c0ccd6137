import type { SchedulerLike } from "rxjs";
import { cronPlatformsOf } from "../config/cronJobFaults.js";
import type { Config } from "../config/index.js";
import { CronScheduler } from "../cron/cronScheduler.js";
import { cronJobsOf, reportBlankThreadIds } from "../cron/cronJobs.js";
import { UsercronFile } from "../cron/usercronFile.js";
import { usercronPathOf } from "../cron/usercronPath.js";
import type { Logger } from "../log/logger.js";
import type { CronMarks } from "../state/cronMarks.js";
import type { EventSource } from "./brokerParts.js";
import { webhookSource } from "./webhookSource.js";

export interface ProactiveSourceOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** The clock `[cron]` reads its minutes from. */
  readonly scheduler: SchedulerLike;
  /** Where firings are recorded for `catch_up = "last"`. */
  readonly marks?: CronMarks;
}

/**
 * The events an edge makes itself: `[cron]`'s scheduler when there is a job or a usercron file to
 * watch (upstream starts none otherwise), and `[webhooks]`' listener when it has endpoints. Each
 * process that holds the config runs its own; the bus's message ids make their firings one, and a
 * delivery is queued by whichever edge the sender reached.
 */
export function proactiveSources(config: Config, options: ProactiveSourceOptions): EventSource[] {
  const sources: EventSource[] = [];
  const jobs = cronJobsOf(config);
  const usercronPath = usercronPathOf(config, options.env, process.cwd());
  if (jobs.length > 0 || usercronPath !== undefined) {
    const logger = options.logger.child({ component: "cron" });
    reportBlankThreadIds(config.cron.blank_thread_ids, "config.toml", logger);
    const usercron = usercronPath === undefined ? undefined : new UsercronFile({ path: usercronPath, platforms: cronPlatformsOf(config), logger });
    sources.push(
      new CronScheduler({ jobs, ...(usercron === undefined ? {} : { usercron }), catchUp: config.cron.catch_up, ...(options.marks === undefined ? {} : { marks: options.marks }), scheduler: options.scheduler, logger }),
    );
  }
  const webhooks = webhookSource(config, options.logger);
  if (webhooks !== undefined) sources.push(webhooks);
  return sources;
}
