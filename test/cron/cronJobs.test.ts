import { describe, expect, it } from "vitest";
import { type Config, resolveConfig } from "../../src/config/index.js";
import { cronJobKey } from "../../src/cron/cronJobKey.js";
import { cronJobsOf, usercronPathOf } from "../../src/cron/index.js";

// config.toml's `[[cron.jobs]]` as the scheduler's jobs, and where the usercron file is (§5.1).

const DISCORD = { bot_token: "MTMxMTExMTExMTExMTExMTExMQ.GkT3xq.fake-token" };
const GATEWAY = { url: "ws://gateway:8080/ws" };

const job = (fields: Record<string, unknown> = {}) => ({ schedule: "0 9 * * 1-5", channel: "1100000000000000001", message: "standup", ...fields });

function resolved(input: Record<string, unknown>): Config {
  return resolveConfig(input, { env: {} });
}

describe("cronJobsOf: config.toml's jobs for the scheduler", () => {
  it("keeps the enabled jobs, in order, each with its index in the file and every default filled", () => {
    const config = resolved({ discord: DISCORD, gateway: GATEWAY, cron: { jobs: [job({ enabled: false }), job({ platform: "line", thread_id: "t1", proactive: true, sender_name: "ops" }), job({ thread_id: "" })] } });
    const jobs = cronJobsOf(config);
    expect(jobs.map(({ schedule: _parsed, key: _key, ...rest }) => rest)).toEqual([
      { source: "config.toml", index: 1, expression: "0 9 * * 1-5", timezone: "UTC", platform: "line", channel: "1100000000000000001", threadId: "t1", message: "standup", senderName: "ops", proactive: true },
      { source: "config.toml", index: 2, expression: "0 9 * * 1-5", timezone: "UTC", platform: "discord", channel: "1100000000000000001", message: "standup", senderName: "openab-cron", proactive: false },
    ]);
    expect(jobs[0]?.schedule).toBeDefined();
  });

  it("gives each job its key once: the same job anywhere in any file has the same, what it does changes it, a usercron id is the key", () => {
    const keys = (jobs: Record<string, unknown>[]) => cronJobsOf(resolved({ discord: DISCORD, cron: { jobs } })).map((each) => each.key);
    const [first, other] = keys([job(), job({ enabled: false }), job({ message: "retro" })]);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(keys([job({ enabled: false }), job({ message: "retro" }), job()])).toEqual([other, first]);
    expect(other).not.toBe(first);
    expect(keys([job({ timezone: "Asia/Taipei" })])[0]).not.toBe(first);
    const [mine] = cronJobsOf(resolved({ discord: DISCORD, cron: { jobs: [job()] } }));
    expect(cronJobKey({ ...mine!, id: "digest" })).toBe("id-digest");
  });
});

describe("usercronPathOf (§5.1)", () => {
  const cron = (fields: Record<string, unknown>) => resolved({ cron: fields });

  it("is off unless usercron_enabled is true and usercron_path is set", () => {
    expect(usercronPathOf(cron({}), { HOME: "/home/bot" }, "/srv")).toBeUndefined();
    expect(usercronPathOf(cron({ usercron_path: "cronjob.toml" }), { HOME: "/home/bot" }, "/srv")).toBeUndefined();
    expect(usercronPathOf(cron({ usercron_enabled: true }), { HOME: "/home/bot" }, "/srv")).toBeUndefined();
  });

  it("an absolute path as it is; a relative one under $HOME/.openab, or .openab under the working directory without HOME", () => {
    expect(usercronPathOf(cron({ usercron_enabled: true, usercron_path: "/etc/openab/cronjob.toml" }), { HOME: "/home/bot" }, "/srv")).toBe("/etc/openab/cronjob.toml");
    expect(usercronPathOf(cron({ usercron_enabled: true, usercron_path: "cronjob.toml" }), { HOME: "/home/bot" }, "/srv")).toBe("/home/bot/.openab/cronjob.toml");
    expect(usercronPathOf(cron({ usercron_enabled: true, usercron_path: "jobs/cron.toml" }), {}, "/srv")).toBe("/srv/.openab/jobs/cron.toml");
    expect(usercronPathOf(cron({ usercron_enabled: true, usercron_path: "cronjob.toml" }), { HOME: "" }, "/srv")).toBe("/srv/.openab/cronjob.toml");
  });
});
