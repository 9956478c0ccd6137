import { describe, expect, it } from "vitest";
import { type Config, parseConfigText, resolveConfig } from "../../src/config/index.js";
import { cronPlatformsOf, platformFault } from "../../src/config/cronJobFaults.js";
import { problemsOf, problemsOfToml } from "./problemsOf.js";

// `[cron]` and `[[cron.jobs]]` as upstream reads them (openab-platforms.md §5.1, §5.3, §6.1), plus
// turnstream's `catch_up` and `proactive`; every problem of a file at once, one line each.

const DISCORD = { bot_token: "MTMxMTExMTExMTExMTExMTExMQ.GkT3xq.fake-token" };
const SLACK = { bot_token: "xoxb-1000000001-2000000002-botSecretPart", app_token: "xapp-1-A0TS000001-3000000003-appSecretPart" };
const TELEGRAM = { bot_token: "123456:AAF-token_9c0e" };
const GATEWAY = { url: "ws://gateway:8080/ws" };

const job = (fields: Record<string, unknown> = {}) => ({ schedule: "0 9 * * 1-5", channel: "1100000000000000001", message: "standup", ...fields });

function resolved(input: Record<string, unknown>): Config {
  return resolveConfig(input, { env: {} });
}

function lines(input: Record<string, unknown>): string[] {
  return problemsOf(input).map((problem) => `${problem.path}: ${problem.message}`);
}

describe("[cron]: keys and defaults (§5.1)", () => {
  it("an absent section: no jobs, no usercron file, nothing caught up", () => {
    expect(resolved({}).cron).toEqual({ usercron_enabled: false, catch_up: "none", jobs: [], blank_thread_ids: [] });
  });

  it("a job with only schedule, channel and message gets upstream's defaults (cronjob_config_defaults), and turnstream's proactive = false", () => {
    expect(resolved({ discord: DISCORD, cron: { jobs: [job()] } }).cron.jobs).toEqual([
      { enabled: true, schedule: "0 9 * * 1-5", channel: "1100000000000000001", message: "standup", platform: "discord", sender_name: "openab-cron", timezone: "UTC", proactive: false },
    ]);
  });

  it("takes an OpenAB [cron] as written, and turnstream's catch_up and proactive", () => {
    const config = parseConfigText(
      `
[discord]
bot_token = "${DISCORD.bot_token}"

[slack]
bot_token = "${SLACK.bot_token}"
app_token = "${SLACK.app_token}"

[cron]
usercron_enabled = true
usercron_path = "cronjob.toml"
catch_up = "last"

[[cron.jobs]]
schedule = "0 9 * * 1-5"
channel = "1100000000000000001"
message = "Summarize yesterday's PRs"
sender_name = "DailyOps"
timezone = "Asia/Taipei"

[[cron.jobs]]
enabled = false
schedule = "bad"
channel = "C0123"
message = "off"
platform = "slack"

[[cron.jobs]]
schedule = "0 0 * * 0"
channel = "C0123"
thread_id = "1715000000.000100"
message = "weekly"
platform = "slack"
proactive = true
`,
      { env: {} },
    );
    expect(config.cron).toMatchObject({ usercron_enabled: true, usercron_path: "cronjob.toml", catch_up: "last", blank_thread_ids: [] });
    expect(config.cron.jobs.map((entry) => [entry.enabled, entry.platform, entry.sender_name, entry.timezone, entry.thread_id, entry.proactive])).toEqual([
      [true, "discord", "DailyOps", "Asia/Taipei", undefined, false],
      [false, "slack", "openab-cron", "UTC", undefined, false],
      [true, "slack", "openab-cron", "UTC", "1715000000.000100", true],
    ]);
  });

  it('thread_id = "" is absent, and the job\'s index is noted for the scheduler to log', () => {
    const cron = resolved({ discord: DISCORD, cron: { jobs: [job(), job({ thread_id: "" }), job({ thread_id: "123" })] } }).cron;
    expect(cron.jobs.map((entry) => entry.thread_id)).toEqual([undefined, undefined, "123"]);
    expect(Object.hasOwn(cron.jobs[1] ?? {}, "thread_id")).toBe(false);
    expect(cron.blank_thread_ids).toEqual([1]);
  });

  it("refuses a wrong type, a missing required key, an unknown key and a bad catch_up, each under its path", () => {
    const jobs = [{ schedule: 5, channel: "1", message: "m" }, { schedule: "* * * * *", message: "m", chanel: "1" }, { schedule: "* * * * *", channel: "1" }];
    expect(lines({ discord: DISCORD, cron: { catch_up: "all", usercron_path: "", jobs } })).toEqual([
      'cron.usercron_path: "" is not allowed; expected a non-empty string',
      "cron.jobs[0].schedule: expected a string, got integer 5",
      'cron.jobs[1].chanel: unknown key (did you mean "channel"?); allowed keys: enabled, schedule, channel, message, platform, sender_name, thread_id, timezone, proactive, id, disable_on_success, disable_on_success_match, disable_on_success_timeout_secs, disable_on_success_working_dir',
      "cron.jobs[2].message: required; expected a string",
      'cron.catch_up: "all" is not allowed; expected one of none, last',
    ]);
  });
});

describe("[[cron.jobs]]: validation of enabled jobs (§5.3)", () => {
  it("reports every fault of every enabled job at once, in upstream's words after the path", () => {
    const problems = lines({
      discord: DISCORD,
      cron: {
        jobs: [
          job({ schedule: "not a cron" }),
          job({ timezone: "Mars/Olympus" }),
          job({ platform: "matrix" }),
          job({ platform: "slack" }),
          job({ schedule: "0 0 9 * * 1-5", timezone: "Nowhere/Else", platform: "telegram" }),
        ],
      },
    });
    expect(problems).toHaveLength(7);
    expect(problems[0]).toMatch(/^cron\.jobs\[0\]\.schedule: invalid cron expression "not a cron": \S/);
    expect(problems.slice(1, 4)).toEqual([
      'cron.jobs[1].timezone: invalid timezone "Mars/Olympus"',
      'cron.jobs[2].platform: unknown platform "matrix" (expected one of: telegram, discord, slack); other platforms go through [gateway]',
      'cron.jobs[3].platform: platform "slack" is not configured — add [slack] to config.toml',
    ]);
    expect(problems[4]).toMatch(/^cron\.jobs\[4\]\.schedule: invalid cron expression "0 0 9 \* \* 1-5": \S/);
    expect(problems.slice(5)).toEqual(['cron.jobs[4].timezone: invalid timezone "Nowhere/Else"', 'cron.jobs[4].platform: platform "telegram" is not configured — add [telegram] to config.toml']);
    for (const line of problems) expect(line).not.toContain("\n");
  });

  it("says what the parser found wrong, as config-reference.md shows it", () => {
    expect(lines({ discord: DISCORD, cron: { jobs: [job({ schedule: "0 9 * *" })] } })).toEqual([
      'cron.jobs[0].schedule: invalid cron expression "0 9 * *": expected 5 whitespace-separated cron fields, got 4: "0 9 * *"',
    ]);
  });

  it("does not validate a disabled job (validate_cronjobs_disabled_with_invalid_cron_passes)", () => {
    expect(resolved({ cron: { jobs: [job({ enabled: false, schedule: "bad", timezone: "Mars/Olympus", platform: "matrix", disable_on_success: "true" })] } }).cron.jobs).toHaveLength(1);
  });

  it("takes upstream's schedules with POSIX day-of-week and asia zones (§6.1)", () => {
    const schedules = ["0 9 * * 1-5", "* * * * *", "0 0 * * 0", "0 7 * * 7", "0 7 * * Mon-Fri", "*/15 9-17 * * *"];
    expect(resolved({ discord: DISCORD, cron: { jobs: schedules.map((schedule) => job({ schedule, timezone: "Asia/Taipei" })) } }).cron.jobs).toHaveLength(schedules.length);
  });

  it("a native platform is configured by its section; any other by [gateway]", () => {
    const jobs = [job({ platform: "discord" }), job({ platform: "slack" }), job({ platform: "telegram" }), job({ platform: "line" }), job({ platform: "googlechat" })];
    expect(resolved({ gateway: GATEWAY, discord: DISCORD, slack: SLACK, telegram: TELEGRAM, cron: { jobs } }).cron.jobs).toHaveLength(5);
    expect(lines({ gateway: GATEWAY, cron: { jobs } })).toEqual([
      'cron.jobs[0].platform: platform "discord" is not configured — add [discord] to config.toml',
      'cron.jobs[1].platform: platform "slack" is not configured — add [slack] to config.toml',
      'cron.jobs[2].platform: platform "telegram" is not configured — add [telegram] to config.toml',
    ]);
    expect(platformFault("line", cronPlatformsOf({ gateway: undefined, telegram: undefined, discord: undefined, slack: undefined }))?.reason).toBe("unknown_platform");
  });

  it("refuses the usercron file's keys in an enabled config.toml job: disable_on_success with upstream's words", () => {
    expect(lines({ discord: DISCORD, cron: { jobs: [job(), job({ disable_on_success: "test -f /tmp/done", disable_on_success_match: "ok", id: "j1", disable_on_success_timeout_secs: 5, disable_on_success_working_dir: "/tmp" })] } })).toEqual([
      "cron.jobs[1].id: id is only supported in usercron [[jobs]], not baseline [[cron.jobs]]",
      "cron.jobs[1].disable_on_success: disable_on_success is only supported in usercron [[jobs]], not baseline [[cron.jobs]]",
      "cron.jobs[1].disable_on_success_match: disable_on_success_match is only supported in usercron [[jobs]], not baseline [[cron.jobs]]",
      "cron.jobs[1].disable_on_success_timeout_secs: disable_on_success_timeout_secs is only supported in usercron [[jobs]], not baseline [[cron.jobs]]",
      "cron.jobs[1].disable_on_success_working_dir: disable_on_success_working_dir is only supported in usercron [[jobs]], not baseline [[cron.jobs]]",
    ]);
  });

  it("a job's faults come with the rest of the file's problems", () => {
    expect(lines({ delivery: { mode: "bubblez" }, discord: DISCORD, cron: { jobs: [job({ timezone: "Mars/Olympus" })] } })).toEqual([
      'delivery.mode: "bubblez" is not allowed; expected one of text, structured, sequential (aliases: plain, off, bubbles)',
      'cron.jobs[0].timezone: invalid timezone "Mars/Olympus"',
    ]);
  });

  it("says nothing about a platform whose section was refused: fixing the section answers it", () => {
    expect(lines({ discord: {}, cron: { jobs: [job()] } })).toEqual(["discord.bot_token: required; expected a bot token as the Developer Portal gives it: three dot-separated parts, the first the bot's id in base64"]);
  });

  it("a long schedule is quoted cut, on one line", () => {
    const [line] = problemsOfToml(`[discord]\nbot_token = "${DISCORD.bot_token}"\n[[cron.jobs]]\nschedule = "${"1 ".repeat(500)}\\n"\nchannel = "1"\nmessage = "m"\n`).map((problem) => problem.message);
    expect(line).toMatch(/^invalid cron expression "1 1 1 .*…: /);
    expect(line).not.toContain("\n");
    expect((line ?? "").length).toBeLessThan(300);
  });
});
