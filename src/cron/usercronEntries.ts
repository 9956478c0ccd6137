import { parse, TomlError } from "smol-toml";
import { type CronJobFault, type CronPlatforms, cronJobFaults } from "../config/cronJobFaults.js";
import { type CronJobConfig, usercronFileSchema, withoutBlankThreadId } from "../config/sections/cron.js";
import { dottedPath } from "../config/shape.js";
import { type CronJob, cronJobOf } from "./cronJob.js";

/**
 * The usercron file's text as jobs, as upstream's `load_usercron_file` reads it: `[[jobs]]` with
 * `[[cron.jobs]]`' fields, unknown keys ignored. A TOML error, or an entry missing a required key
 * or holding a value of the wrong type, fails the whole file. Otherwise every entry is validated,
 * disabled ones too, and an invalid one dropped on its first fault; then the disabled ones are
 * dropped. Pure: the caller reads the file and logs what this reports.
 */

/** Why an entry was dropped: its values' first fault, or a `disable_on_success` without what it needs. */
export type UsercronDropReason = CronJobFault["reason"] | "disable_on_success_without_id" | "disable_on_success_without_match" | "disable_on_success_not_built";

export interface UsercronDrop {
  readonly index: number;
  readonly reason: UsercronDropReason;
  /** The offending key and its value (`{ schedule: "bad" }`, the parser's `error` beside it), for the log line. */
  readonly fields: Readonly<Record<string, string>>;
}

export type UsercronFailure =
  | { readonly reason: "invalid_toml"; readonly line: number; readonly column: number }
  | { readonly reason: "invalid_entry"; readonly key: string };

export type UsercronRead =
  | { readonly ok: false; readonly failure: UsercronFailure }
  | {
      readonly ok: true;
      readonly jobs: readonly CronJob[];
      readonly dropped: readonly UsercronDrop[];
      /** Indexes of valid entries with `enabled = false`. */
      readonly disabled: readonly number[];
      /** Indexes of the kept jobs whose `thread_id` was `""`, now absent. */
      readonly blankThreadIds: readonly number[];
    };

export function usercronJobsOf(text: string, platforms: CronPlatforms): UsercronRead {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // Only where: smol-toml's message quotes the line, which may hold a command.
    return { ok: false, failure: { reason: "invalid_toml", line: error.line, column: error.column } };
  }
  const parsed = usercronFileSchema.safeParse(document);
  if (!parsed.success) return { ok: false, failure: { reason: "invalid_entry", key: dottedPath(parsed.error.issues[0]?.path ?? []) } };

  const jobs: CronJob[] = [];
  const dropped: UsercronDrop[] = [];
  const disabled: number[] = [];
  const blankThreadIds: number[] = [];
  parsed.data.jobs.forEach((entry, index) => {
    const drop = dropOf(entry, index, platforms);
    if (drop !== undefined) dropped.push(drop);
    else if (!entry.enabled) disabled.push(index);
    else {
      if (entry.thread_id === "") blankThreadIds.push(index);
      jobs.push(cronJobOf(withoutBlankThreadId(entry), "cronjob.toml", index));
    }
  });
  return { ok: true, jobs, dropped, disabled, blankThreadIds };
}

/** The entry's first fault, in upstream's order, or undefined when it is valid. */
function dropOf(entry: CronJobConfig, index: number, platforms: CronPlatforms): UsercronDrop | undefined {
  const fault = cronJobFaults(entry, platforms)[0];
  if (fault !== undefined) return { index, reason: fault.reason, fields: { [fault.key]: entry[fault.key], ...(fault.detail === undefined ? {} : { error: fault.detail }) } };
  if (entry.disable_on_success === undefined) return undefined;
  // The command is not quoted: a shell line may carry a credential.
  if (entry.id === undefined) return { index, reason: "disable_on_success_without_id", fields: {} };
  if (entry.disable_on_success_match === undefined) return { index, reason: "disable_on_success_without_match", fields: { id: entry.id } };
  // Upstream runs the command in its one process before each firing; which of several processes
  // should (once, for a firing any of them may make) is not built yet: refused, never ignored.
  return { index, reason: "disable_on_success_not_built", fields: { id: entry.id } };
}
