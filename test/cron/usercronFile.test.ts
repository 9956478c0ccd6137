import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CronPlatforms } from "../../src/config/cronJobFaults.js";
import { type CronJob, MAX_USERCRON_BYTES, UsercronFile, usercronJobsOf } from "../../src/cron/index.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";

// The usercron file as upstream's `load_usercron_file` and the scheduler's reload read it
// (openab-platforms.md §5.6, §6.1), over real files in a temp directory.

const DISCORD_ONLY: CronPlatforms = { native: new Set(["discord"]), gateway: false };

const GOOD = `
[[jobs]]
schedule = "0 9 * * 1-5"
channel = "1100000000000000001"
message = "good"
`;

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "usercron-"));
  path = join(dir, "cronjob.toml");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(platforms: CronPlatforms = DISCORD_ONLY): { usercron: UsercronFile; records: LogRecord[] } {
  const { logger, records } = captureLogs("debug");
  return { usercron: new UsercronFile({ path, platforms, logger }), records };
}

/** Writes the file and moves its mtime to `secs` (unix seconds), so a change never hides in one mtime tick. */
function write(text: string, secs: number): void {
  writeFileSync(path, text);
  utimesSync(path, secs, secs);
}

const messages = (jobs: readonly CronJob[] | undefined) => jobs?.map((job) => job.message);
/** The records without pino's own fields (time, pid, hostname, name). */
const logged = (records: readonly LogRecord[]): Record<string, unknown>[] => records.map(({ time: _t, pid: _p, hostname: _h, name: _n, ...fields }) => fields);

describe("UsercronFile: the first load", () => {
  it("a missing file: no jobs, silently (load_usercron_nonexistent_returns_empty)", () => {
    const { usercron, records } = file();
    expect(usercron.load()).toEqual([]);
    expect(records).toEqual([]);
  });

  it("an empty file: no jobs, nothing logged", () => {
    write("", 1_000);
    const { usercron, records } = file();
    expect(usercron.load()).toEqual([]);
    expect(records).toEqual([]);
  });

  it("a job with only schedule, channel and message: upstream's defaults, logged as loaded", () => {
    write(GOOD, 1_000);
    const { usercron, records } = file();
    const jobs = usercron.load();
    expect(jobs.map(({ schedule: _parsed, ...rest }) => rest)).toEqual([
      { key: expect.stringMatching(/^[0-9a-f]{16}$/), source: "cronjob.toml", index: 0, expression: "0 9 * * 1-5", timezone: "UTC", platform: "discord", channel: "1100000000000000001", message: "good", senderName: "openab-cron", proactive: false },
    ]);
    expect(logged(records)).toEqual([{ level: 30, msg: "loaded usercron jobs", count: 1, path }]);
  });

  it("ignores unknown keys, at the top and in an entry, as upstream", () => {
    write(`owner = "agent"\n${GOOD}color = "blue"\n`, 1_000);
    expect(messages(file().usercron.load())).toEqual(["good"]);
  });

  it("invalid TOML: every entry skipped, with where (load_usercron_invalid_toml)", () => {
    write(`${GOOD}\n[[jobs]\nschedule = "x"`, 1_000);
    const { usercron, records } = file();
    expect(usercron.load()).toEqual([]);
    expect(logged(records)).toEqual([{ level: 40, msg: "failed to parse usercron file, skipping all entries", reason: "invalid_toml", line: expect.any(Number), column: expect.any(Number), path }]);
  });

  it("a missing required key, or a wrong type, in any entry skips every entry", () => {
    write(`${GOOD}\n[[jobs]]\nschedule = "* * * * *"\nmessage = "no channel"\n`, 1_000);
    const missing = file();
    expect(missing.usercron.load()).toEqual([]);
    expect(logged(missing.records)).toEqual([{ level: 40, msg: "failed to parse usercron file, skipping all entries", reason: "invalid_entry", key: "jobs[1].channel", path }]);

    write(`${GOOD}enabled = "yes"\n`, 2_000);
    const wrong = file();
    expect(wrong.usercron.load()).toEqual([]);
    expect(wrong.records[0]).toMatchObject({ reason: "invalid_entry", key: "jobs[0].enabled" });
  });

  it("drops each invalid entry with upstream's warning, its index and the value, and keeps the rest (load_usercron_skips_invalid_entries)", () => {
    write(
      `${GOOD}
[[jobs]]
schedule = "bad cron"
channel = "1"
message = "bad schedule"

[[jobs]]
schedule = "* * * * *"
timezone = "Mars/Olympus"
channel = "1"
message = "bad zone"

[[jobs]]
schedule = "* * * * *"
platform = "matrix"
channel = "1"
message = "unknown platform"

[[jobs]]
schedule = "* * * * *"
platform = "slack"
channel = "C1"
message = "slack not configured"

[[jobs]]
schedule = "* * * * *"
channel = "1"
message = "no id"
disable_on_success = "test -f /tmp/secret-token-x"
disable_on_success_match = "ok"

[[jobs]]
id = "j7"
schedule = "* * * * *"
channel = "1"
message = "no match"
disable_on_success = "true"
`,
      1_000,
    );
    const { usercron, records } = file();
    expect(messages(usercron.load())).toEqual(["good"]);
    const warnings = logged(records).filter((record) => record.level === 40);
    expect(warnings[0]).toMatchObject({ msg: "usercron: invalid cron expression, skipping", reason: "invalid_cron_expression", index: 1, schedule: "bad cron", path });
    expect(typeof warnings[0]?.["error"]).toBe("string");
    expect(warnings.slice(1)).toEqual([
      { level: 40, msg: "usercron: invalid timezone, skipping", reason: "invalid_timezone", index: 2, timezone: "Mars/Olympus", path },
      { level: 40, msg: "usercron: unknown platform, skipping", reason: "unknown_platform", index: 3, platform: "matrix", path },
      { level: 40, msg: "usercron: platform not configured, skipping", reason: "platform_not_configured", index: 4, platform: "slack", path },
      { level: 40, msg: "usercron: disable_on_success requires id, skipping", reason: "disable_on_success_without_id", index: 5, path },
      { level: 40, msg: "usercron: disable_on_success requires disable_on_success_match, skipping", reason: "disable_on_success_without_match", index: 6, id: "j7", path },
    ]);
    expect(JSON.stringify(records)).not.toContain("secret-token-x");
  });

  it("keeps a job for a configured platform and drops the one for an unconfigured one (load_usercron_skips_unconfigured_platform)", () => {
    write(`${GOOD}\n[[jobs]]\nschedule = "* * * * *"\nplatform = "slack"\nchannel = "C1"\nmessage = "slack"\n`, 1_000);
    expect(messages(file().usercron.load())).toEqual(["good"]);
    expect(messages(file({ native: new Set(["discord", "slack"]), gateway: false }).usercron.load())).toEqual(["good", "slack"]);
  });

  it("validates a disabled entry too, then drops it; indexes count every entry", () => {
    write(`[[jobs]]\nenabled = false\nschedule = "bad"\nchannel = "1"\nmessage = "off and bad"\n\n[[jobs]]\nenabled = false\nschedule = "* * * * *"\nchannel = "1"\nmessage = "off"\n${GOOD}`, 1_000);
    const { usercron, records } = file();
    const jobs = usercron.load();
    expect(jobs.map((job) => [job.index, job.message])).toEqual([[2, "good"]]);
    expect(logged(records).map((record) => [record.msg, record["index"]])).toEqual([
      ["usercron: invalid cron expression, skipping", 0],
      ["cronjob disabled, skipping", 1],
      ["loaded usercron jobs", undefined],
    ]);
  });

  it('takes thread_id = "" as absent and says so; carries id; refuses a complete disable_on_success, which is not built', () => {
    write(
      `${GOOD}thread_id = ""\n\n[[jobs]]\nid = "digest"\nschedule = "30 8 * * *"\nchannel = "1"\nthread_id = "2200000000000000002"\nmessage = "digest"\nproactive = true\n\n[[jobs]]\nid = "goal"\nschedule = "30 8 * * *"\nchannel = "1"\nmessage = "goal"\ndisable_on_success = "gh pr view 1"\ndisable_on_success_match = "MERGED"\ndisable_on_success_timeout_secs = 0\n`,
      1_000,
    );
    const { usercron, records } = file();
    const [first, second, third] = usercron.load();
    expect(first?.threadId).toBeUndefined();
    expect(Object.hasOwn(first ?? {}, "threadId")).toBe(false);
    expect(second).toMatchObject({ id: "digest", threadId: "2200000000000000002", proactive: true });
    expect(third).toBeUndefined();
    expect(logged(records)[0]).toEqual({ level: 40, msg: "usercron: disable_on_success is not supported by turnstream, skipping", reason: "disable_on_success_not_built", index: 2, id: "goal", path });
    expect(logged(records)[1]).toEqual({ level: 40, msg: "cronjob thread_id is empty, treated as absent", reason: "blank_thread_id", source: "cronjob.toml", index: 0 });
    expect(JSON.stringify(records)).not.toContain("gh pr view");
  });

  it("a path it cannot read as a file: warned, no jobs", () => {
    mkdirSync(path);
    const { usercron, records } = file();
    expect(usercron.load()).toEqual([]);
    expect(logged(records)).toEqual([{ level: 40, msg: "failed to read usercron file", reason: "not_a_file", path }]);
  });

  it("a FIFO at the path is refused, not waited on", () => {
    execFileSync("mkfifo", [path]);
    const { usercron, records } = file();
    expect(usercron.load()).toEqual([]);
    expect(records[0]).toMatchObject({ msg: "failed to read usercron file", reason: "not_a_file" });
  });

  it("a file over the bound is not read; nor one that is not UTF-8", () => {
    write(`${GOOD}# ${"x".repeat(MAX_USERCRON_BYTES)}\n`, 1_000);
    const big = file();
    expect(big.usercron.load()).toEqual([]);
    expect(logged(big.records)).toEqual([{ level: 40, msg: "failed to read usercron file", reason: "too_large", path }]);

    writeFileSync(path, Buffer.concat([Buffer.from(GOOD), Buffer.from([0xff, 0xfe, 0x0a])]));
    const binary = file();
    expect(binary.usercron.load()).toEqual([]);
    expect(binary.records[0]).toMatchObject({ reason: "not_utf8" });
  });
});

describe("UsercronFile.reloadIfChanged: every tick, before the jobs are evaluated", () => {
  it("undefined while the file is unchanged; the whole new list when its mtime moves", () => {
    write(GOOD, 1_000);
    const { usercron, records } = file();
    expect(messages(usercron.load())).toEqual(["good"]);
    expect(usercron.reloadIfChanged()).toBeUndefined();
    expect(usercron.reloadIfChanged()).toBeUndefined();

    write(`${GOOD}\n[[jobs]]\nschedule = "* * * * *"\nchannel = "1"\nmessage = "added"\n`, 2_000);
    expect(messages(usercron.reloadIfChanged())).toEqual(["good", "added"]);
    expect(usercron.reloadIfChanged()).toBeUndefined();
    expect(logged(records).map((record) => [record.msg, record["count"]])).toEqual([
      ["loaded usercron jobs", 1],
      ["usercron file changed, reloading", 2],
    ]);
  });

  it("a touch alone reloads (mtime is what is compared), the same jobs again", () => {
    write(GOOD, 1_000);
    const { usercron } = file();
    usercron.load();
    utimesSync(path, 3_000, 3_000);
    expect(messages(usercron.reloadIfChanged())).toEqual(["good"]);
  });

  it("creating the file is a change; deleting it is one too and leaves no jobs", () => {
    const { usercron, records } = file();
    expect(usercron.load()).toEqual([]);
    expect(usercron.reloadIfChanged()).toBeUndefined();
    write(GOOD, 1_000);
    expect(messages(usercron.reloadIfChanged())).toEqual(["good"]);
    rmSync(path);
    expect(usercron.reloadIfChanged()).toEqual([]);
    expect(usercron.reloadIfChanged()).toBeUndefined();
    expect(logged(records)).toEqual([
      { level: 30, msg: "usercron file changed, reloading", count: 1, path },
      { level: 30, msg: "usercron file changed, reloading", count: 0, path },
    ]);
  });

  it("a change to a broken file leaves no jobs; fixing it brings them back", () => {
    write(GOOD, 1_000);
    const { usercron } = file();
    usercron.load();
    write("[[jobs]\n", 2_000);
    expect(usercron.reloadIfChanged()).toEqual([]);
    write(GOOD, 3_000);
    expect(messages(usercron.reloadIfChanged())).toEqual(["good"]);
  });

  it("before any load it loads", () => {
    write(GOOD, 1_000);
    const { usercron, records } = file();
    expect(messages(usercron.reloadIfChanged())).toEqual(["good"]);
    expect(usercron.reloadIfChanged()).toBeUndefined();
    expect(records.map((record) => record.msg)).toEqual(["loaded usercron jobs"]);
  });

  it("a rewrite with the old mtime put back is still seen when the size changed", () => {
    write(GOOD, 1_000);
    const { usercron } = file();
    usercron.load();
    write(`${GOOD}\n[[jobs]]\nschedule = "* * * * *"\nchannel = "1"\nmessage = "same second"\n`, 1_000);
    expect(statSync(path).mtimeMs).toBe(1_000_000);
    expect(messages(usercron.reloadIfChanged())).toEqual(["good", "same second"]);
  });
});

describe("usercronJobsOf: linear in the file", () => {
  it("reads a thousand entries", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `[[jobs]]\nschedule = "${i % 60} * * * *"\nchannel = "1"\nmessage = "m${i}"\n`).join("\n");
    const read = usercronJobsOf(text, DISCORD_ONLY);
    expect(read.ok && read.jobs.length).toBe(1000);
  });
});
