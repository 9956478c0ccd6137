import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "turnstream";
import { admit, nextFiring, parseCronExpression, settingsFromConfig, silentReply } from "turnstream/operators";

// docs/proactive.md's worked example, docs/examples/nightlyDigest.toml, read as turnstream reads it.
const toml = readFileSync(new URL("./nightlyDigest.toml", import.meta.url), "utf8");
const config = parseConfigText(toml, { env: { TELEGRAM_BOT_TOKEN: "123456789:AAE-docs-example-token" } });
const job = config.cron.jobs[0];
const at = (iso: string) => Date.parse(iso);

/** The job's firings after `from`, `count` of them, as UTC ISO times. */
function firings(from: string, count: number): string[] {
  const schedule = parseCronExpression(job?.schedule ?? "");
  const times: string[] = [];
  for (let after = at(from); times.length < count; ) {
    const next = nextFiring(schedule, job?.timezone ?? "", after);
    if (next === undefined) break;
    times.push(new Date(next).toISOString());
    after = next;
  }
  return times;
}

describe("the nightly digest", () => {
  it("is one proactive job on Telegram, triaged, its replies sent whole", () => {
    expect(config.cron.jobs).toHaveLength(1);
    expect(job).toMatchObject({ enabled: true, platform: "telegram", channel: "123456789", proactive: true });
    expect(config.triage.enabled).toBe(true);
    // Telegram streams by default; a proactive turn is sent whole anyway (no placeholder before the agent speaks).
    expect(config.telegram?.streaming).toBe(true);
    expect(config.delivery.mode).toBe("text");
  });

  it("fires at 21:00 Berlin time once a night, across both 2026 clock changes", () => {
    // Summer time starts on 29 March (UTC+1 → UTC+2) and ends on 25 October.
    expect(firings("2026-03-27T12:00:00Z", 3)).toEqual(["2026-03-27T20:00:00.000Z", "2026-03-28T20:00:00.000Z", "2026-03-29T19:00:00.000Z"]);
    expect(firings("2026-10-23T12:00:00Z", 3)).toEqual(["2026-10-23T19:00:00.000Z", "2026-10-24T19:00:00.000Z", "2026-10-25T20:00:00.000Z"]);
  });

  it("wakes the chat at 21:00, outside its quiet hours; anything proactive soon after, or at night, does not", () => {
    const settings = settingsFromConfig(config.triage);
    const firing = at("2026-06-10T19:00:00Z"); // 21:00 in Berlin
    const digest = admit(undefined, "cron:nightly:2026-06-10T19:00:00.000Z", settings, firing);
    expect(digest.verdict).toEqual({ decision: "wake" });
    // The same firing queued twice is one turn.
    expect(admit(digest.state, "cron:nightly:2026-06-10T19:00:00.000Z", settings, firing + 60_000).verdict).toMatchObject({ reason: "duplicate" });
    // Another proactive event in the same chat ten minutes later: the cooldown holds it.
    expect(admit(digest.state, "webhook:alerts:1", settings, firing + 600_000).verdict).toMatchObject({ reason: "cooldown" });
    // At 23:30 in Berlin: quiet hours.
    expect(admit(undefined, "webhook:alerts:2", settings, at("2026-06-10T21:30:00Z")).verdict).toMatchObject({ reason: "quiet_hours" });
  });

  it("ends its prompt with the report token, which makes the agent's answer silence", () => {
    expect((job?.message ?? "").split("\n").at(-1)).toBe(config.silent.report_token);
    const options = { token: config.silent.token, reportToken: config.silent.report_token, proactive: job?.proactive ?? false };
    expect(silentReply("NOTHING_TO_REPORT", options)).toEqual({ kind: "silent", reason: "nothing_to_report" });
    expect(silentReply("Nothing new in the changelog today.\nNOTHING_TO_REPORT", options)).toEqual({ kind: "silent", reason: "nothing_to_report" });
    expect(silentReply("- v2.4 ships the new exporter", options)).toEqual({ kind: "deliver", text: "- v2.4 ships the new exporter" });
  });
});
