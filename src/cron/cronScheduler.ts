import { firstValueFrom, lastValueFrom, type SchedulerLike, type Subscription } from "rxjs";
import { cronMinutes } from "../../operators/cron/cronMinutes.js";
import { firesAt, nextFiring } from "../../operators/cron/cronTime.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import type { CronMarks } from "../state/cronMarks.js";
import type { CronJob } from "./cronJob.js";
import { cronFiringEvent } from "./cronFiringEvent.js";

/** Queues an event for its turn (the broker's `submit`): resolves once it is durably queued, saying whether it was a duplicate. */
export type SubmitEvent = (event: GatewayEvent) => Promise<readonly { readonly duplicate: boolean }[]>;

/** The usercron file as the scheduler reads it (`UsercronFile`): once at start, then each minute. */
export interface UsercronJobs {
  load(): readonly CronJob[];
  /** The file's jobs when it changed since the last read (created, edited, deleted), else undefined. */
  reloadIfChanged(): readonly CronJob[] | undefined;
}

export interface CronSchedulerOptions {
  /** config.toml's jobs, enabled and validated. */
  readonly jobs: readonly CronJob[];
  /** The usercron file, when `usercron_enabled` and a path are set. */
  readonly usercron?: UsercronJobs;
  /** `[cron] catch_up`. */
  readonly catchUp: "none" | "last";
  /** With `catch_up = "last"`: where every process records the minutes it fired, read at start. */
  readonly marks?: CronMarks;
  /** The clock: minutes are the scheduler's (virtual in tests). */
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** How far back `catch_up` looks for a minute nobody fired; default 31 days. */
  readonly catchUpHorizonMs?: number;
}

const MINUTE_MS = 60_000;
const DEFAULT_CATCH_UP_HORIZON_MS = 31 * 24 * 60 * MINUTE_MS;
/** A minute whose tick comes this late was passed while the process was stalled, not just late. */
const STALE_MINUTE_MS = 2 * MINUTE_MS;

/**
 * `[cron]` as OpenAB's scheduler runs it (reference §5.4), in every process that holds it: on each
 * minute of the scheduler's clock, the usercron file is reloaded if it changed, and each job whose
 * schedule has that minute in its timezone is queued as one firing (`cronFiringEvent`). Every
 * process queues the same message id for a job's minute, so the bus keeps one and one turn runs,
 * wherever it runs; a process that is down misses nothing another fires. With `catch_up = "last"`
 * a job whose latest scheduled minute no process fired (all were down) fires it once at start.
 * What a firing does is `withCronFirings`' (the worker's), overlap included.
 */
export class CronScheduler {
  readonly #options: CronSchedulerOptions;
  #usercron: readonly CronJob[] = [];
  /** Minutes that came too late to fire, not yet logged. */
  #stale = 0;
  #ticks: Subscription | undefined;
  #submit: SubmitEvent | undefined;
  /** Firings queued and not yet answered, so `close` can wait for them. */
  readonly #pending = new Set<Promise<void>>();

  constructor(options: CronSchedulerOptions) {
    this.#options = options;
  }

  /** The jobs it runs now: config.toml's, then the usercron file's (upstream's order). */
  get jobs(): readonly CronJob[] {
    return [...this.#options.jobs, ...this.#usercron];
  }

  /** Starts ticking; `submit` queues each firing. Catches up first with `catch_up = "last"`. */
  async start(submit: SubmitEvent): Promise<void> {
    this.#submit = submit;
    const { logger, scheduler, marks } = this.#options;
    this.#usercron = this.#options.usercron?.load() ?? [];
    for (const job of this.jobs) {
      logger.info({ job: job.key, schedule: job.expression, timezone: job.timezone, platform: job.platform, channel: job.channel, proactive: job.proactive, source: job.source }, "cronjob registered");
    }
    logger.info({ baseline: this.#options.jobs.length, usercron: this.#usercron.length, total: this.jobs.length, catchUp: this.#options.catchUp, marks: marks?.kind }, "cron scheduler started");
    const now = scheduler.now();
    // Ticking from now, not from when the marks answered: a minute that begins while they are read
    // is this process's to fire. It waits for the catch-up, which reads the marks as they were.
    let held: number[] | undefined = [];
    this.#ticks = cronMinutes(scheduler).subscribe((minute) => (held === undefined ? this.#tick(minute) : held.push(minute)));
    if (this.#options.catchUp === "last" && marks !== undefined) await this.#catchUp(now, marks);
    const due = held;
    held = undefined;
    // Closed meanwhile: the held minutes go with the ticks.
    if (this.#ticks !== undefined) for (const minute of due) this.#tick(minute);
  }

  /** Stops ticking and waits for the firings already handed to the bus. */
  async close(): Promise<void> {
    this.#ticks?.unsubscribe();
    this.#ticks = undefined;
    if (this.#pending.size > 0) this.#options.logger.info({ pending: this.#pending.size }, "cron scheduler shutting down, waiting for queued firings");
    await Promise.all(this.#pending);
  }

  #tick(minute: number): void {
    // The clock passed minutes this process never saw (a suspended machine, a stalled loop):
    // upstream skips them, and the other processes fired them; `catch_up` is for when none did.
    if (this.#options.scheduler.now() - minute >= STALE_MINUTE_MS) {
      this.#stale += 1;
      return;
    }
    if (this.#stale > 0) {
      this.#options.logger.warn({ reason: "clock_jumped", minutes: this.#stale }, "cron minutes passed while this process was stalled; not fired");
      this.#stale = 0;
    }
    const reloaded = this.#options.usercron?.reloadIfChanged();
    if (reloaded !== undefined) this.#usercron = reloaded;
    for (const job of this.jobs) {
      if (firesAt(job.schedule, job.timezone, minute)) this.#fire(job, minute, false);
    }
  }

  /** Each job's latest scheduled minute up to `now` that no process fired, fired once (all jobs side by side). */
  async #catchUp(now: number, marks: CronMarks): Promise<void> {
    const { logger } = this.#options;
    const horizon = this.#options.catchUpHorizonMs ?? DEFAULT_CATCH_UP_HORIZON_MS;
    const thisMinute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    await Promise.all(
      this.jobs.map(async (job) => {
        const { key } = job;
        try {
          const last = await firstValueFrom(marks.lastFired(key));
          // A job never fired before starts its record now: firing its past would surprise whoever just added it.
          // This minute included, or a process starting later in it would read the record and fire it.
          if (last === undefined) return await lastValueFrom(marks.fired(key, thisMinute), { defaultValue: undefined });
          // This minute too: every process may have been down at its start.
          const missed = latestFiring(job, Math.max(last, now - horizon), thisMinute + MINUTE_MS);
          if (missed === undefined) return;
          logger.info({ job: key, schedule: job.expression, minute: new Date(missed).toISOString(), lastFired: new Date(last).toISOString() }, "cronjob missed while no process was up; firing it once");
          this.#fire(job, missed, true);
        } catch (err) {
          logger.warn({ reason: "marks_unreachable", job: key, err }, "cronjob catch-up skipped");
        }
      }),
    );
  }

  #fire(job: CronJob, minute: number, catchUp: boolean): void {
    const submit = this.#submit;
    if (submit === undefined) return;
    const { logger, marks } = this.#options;
    const { key } = job;
    const event = cronFiringEvent(job, minute, { catchUp });
    const fields = { job: key, schedule: job.expression, platform: job.platform, channel: job.channel, sender: job.senderName, minute: event.cron?.minute, source: job.source };
    const pending: Promise<void> = submit(event)
      .then(async (queued) => {
        if (queued.some((one) => !one.duplicate)) logger.info(fields, "🔔 cronjob fired");
        else logger.debug({ ...fields, reason: "duplicate" }, "cronjob firing already queued by another process");
        if (this.#options.catchUp !== "last" || marks === undefined) return;
        await lastValueFrom(marks.fired(key, minute), { defaultValue: undefined }).catch((err: unknown) =>
          logger.warn({ reason: "marks_unreachable", job: key, err }, "cronjob firing not recorded for catch_up"),
        );
      })
      .catch((err: unknown) => logger.error({ ...fields, reason: "queue_failed", err }, "cronjob firing not queued"))
      .finally(() => this.#pending.delete(pending));
    this.#pending.add(pending);
  }
}

/** The latest minute in (`after`, `before`) at which `job` fires; undefined when none. */
function latestFiring(job: CronJob, after: number, before: number): number | undefined {
  let latest: number | undefined;
  for (let at = nextFiring(job.schedule, job.timezone, after, before - after); at !== undefined && at < before; at = nextFiring(job.schedule, job.timezone, at, before - at)) {
    latest = at;
  }
  return latest;
}
