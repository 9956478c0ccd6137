import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import type { CronPlatforms } from "../config/cronJobFaults.js";
import type { Logger } from "../log/logger.js";
import type { CronJob } from "./cronJob.js";
import { reportBlankThreadIds } from "./cronJobs.js";
import { type UsercronDropReason, type UsercronFailure, usercronJobsOf } from "./usercronEntries.js";

export const USERCRON_LOADED_LOG = "loaded usercron jobs";
export const USERCRON_CHANGED_LOG = "usercron file changed, reloading";
export const USERCRON_READ_FAILED_WARNING = "failed to read usercron file";
export const USERCRON_PARSE_FAILED_WARNING = "failed to parse usercron file, skipping all entries";
export const USERCRON_DISABLED_LOG = "cronjob disabled, skipping";
export const USERCRON_INVALID_SCHEDULE_WARNING = "usercron: invalid cron expression, skipping";
export const USERCRON_INVALID_TIMEZONE_WARNING = "usercron: invalid timezone, skipping";
export const USERCRON_UNKNOWN_PLATFORM_WARNING = "usercron: unknown platform, skipping";
export const USERCRON_PLATFORM_NOT_CONFIGURED_WARNING = "usercron: platform not configured, skipping";
export const USERCRON_WITHOUT_ID_WARNING = "usercron: disable_on_success requires id, skipping";
export const USERCRON_WITHOUT_MATCH_WARNING = "usercron: disable_on_success requires disable_on_success_match, skipping";
export const USERCRON_DISABLE_ON_SUCCESS_NOT_BUILT_WARNING = "usercron: disable_on_success is not supported by turnstream, skipping";

const DROP_LOGS: Readonly<Record<UsercronDropReason, string>> = {
  invalid_cron_expression: USERCRON_INVALID_SCHEDULE_WARNING,
  invalid_timezone: USERCRON_INVALID_TIMEZONE_WARNING,
  unknown_platform: USERCRON_UNKNOWN_PLATFORM_WARNING,
  platform_not_configured: USERCRON_PLATFORM_NOT_CONFIGURED_WARNING,
  disable_on_success_without_id: USERCRON_WITHOUT_ID_WARNING,
  disable_on_success_without_match: USERCRON_WITHOUT_MATCH_WARNING,
  disable_on_success_not_built: USERCRON_DISABLE_ON_SUCCESS_NOT_BUILT_WARNING,
};

/** The largest usercron file read: an agent writes it, and it is read again on every change. */
export const MAX_USERCRON_BYTES = 1024 * 1024;

export interface UsercronFileOptions {
  /** Where the file is (`usercronPathOf`). */
  readonly path: string;
  /** The platforms a job may name (`cronPlatformsOf(config)`). */
  readonly platforms: CronPlatforms;
  readonly logger: Logger;
}

/** What the file's directory entry said when last read: `null` while it is absent (or cannot be looked at). */
type Stamp = string | null;

/**
 * The usercron file (upstream's `cronjob.toml`), which the scheduler asks for its jobs: `load`
 * once at start, then `reloadIfChanged` on every tick, which reads the file again only when its
 * modification time (or size, or inode) changed since the last read — an absent file counts as a
 * value, so creating or deleting it is a change. No timers and no clock inside: the scheduler's
 * tick is the only time. Synchronous, since it runs once a minute on a small file; a file over
 * `MAX_USERCRON_BYTES` is not read. Never throws: what is wrong is logged, and the file has no jobs.
 */
export class UsercronFile {
  readonly path: string;
  readonly #platforms: CronPlatforms;
  readonly #logger: Logger;
  /** undefined until the first read. */
  #seen: Stamp | undefined;

  constructor(options: UsercronFileOptions) {
    this.path = options.path;
    this.#platforms = options.platforms;
    this.#logger = options.logger;
  }

  /** Reads the file: its enabled, valid jobs (none when it is absent). Logs `loaded usercron jobs` when there are some. */
  load(): readonly CronJob[] {
    this.#seen = stampOf(this.path);
    const jobs = this.#jobs();
    if (jobs.length > 0) this.#logger.info({ count: jobs.length, path: this.path }, USERCRON_LOADED_LOG);
    return jobs;
  }

  /** The file's jobs when it changed since the last read (all of them: they replace the previous list), else undefined. Before any read, `load()`. */
  reloadIfChanged(): readonly CronJob[] | undefined {
    if (this.#seen === undefined) return this.load();
    const stamp = stampOf(this.path);
    if (stamp === this.#seen) return undefined;
    this.#seen = stamp;
    const jobs = this.#jobs();
    this.#logger.info({ count: jobs.length, path: this.path }, USERCRON_CHANGED_LOG);
    return jobs;
  }

  #jobs(): readonly CronJob[] {
    const text = this.#text();
    if (text === undefined) return [];
    const read = usercronJobsOf(text, this.#platforms);
    if (!read.ok) {
      this.#logger.warn({ ...failureFields(read.failure), path: this.path }, USERCRON_PARSE_FAILED_WARNING);
      return [];
    }
    for (const drop of read.dropped) this.#logger.warn({ reason: drop.reason, index: drop.index, ...drop.fields, path: this.path }, DROP_LOGS[drop.reason]);
    for (const index of read.disabled) this.#logger.info({ source: "cronjob.toml", index }, USERCRON_DISABLED_LOG);
    reportBlankThreadIds(read.blankThreadIds, "cronjob.toml", this.#logger);
    return read.jobs;
  }

  /** The file's text; undefined when it is absent (silently) or cannot be read (logged). */
  #text(): string | undefined {
    const read = readBounded(this.path);
    if (read.ok) return read.text;
    if (read.reason !== "absent") this.#logger.warn({ reason: read.reason, ...(read.code === undefined ? {} : { code: read.code }), path: this.path }, USERCRON_READ_FAILED_WARNING);
    return undefined;
  }
}

function failureFields(failure: UsercronFailure): Record<string, unknown> {
  return failure.reason === "invalid_toml" ? { reason: failure.reason, line: failure.line, column: failure.column } : { reason: failure.reason, key: failure.key };
}

function stampOf(path: string): Stamp {
  try {
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
    return stat === undefined ? null : `${stat.mtimeNs}:${stat.size}:${stat.ino}`;
  } catch {
    return null;
  }
}

type BoundedRead = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: "absent" | "unreadable" | "not_a_file" | "too_large" | "not_utf8"; readonly code?: string };

/**
 * At most `MAX_USERCRON_BYTES` of a regular file, as strict UTF-8 (upstream's `read_to_string`
 * refuses anything else). Opened without blocking, so a FIFO at the path is refused, not waited on.
 */
function readBounded(path: string): BoundedRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return unreadable(error);
  }
  try {
    if (!fstatSync(fd).isFile()) return { ok: false, reason: "not_a_file" };
    const buffer = Buffer.alloc(MAX_USERCRON_BYTES + 1);
    let length = 0;
    let n: number;
    do {
      n = readSync(fd, buffer, length, buffer.length - length, null);
      length += n;
    } while (n > 0 && length < buffer.length);
    if (length > MAX_USERCRON_BYTES) return { ok: false, reason: "too_large" };
    try {
      return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, length)) };
    } catch {
      return { ok: false, reason: "not_utf8" };
    }
  } catch (error) {
    return unreadable(error);
  } finally {
    closeSync(fd);
  }
}

function unreadable(error: unknown): BoundedRead {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return { ok: false, reason: "absent" };
  return { ok: false, reason: "unreadable", ...(code === undefined ? {} : { code }) };
}
