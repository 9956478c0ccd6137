import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { delay, firstValueFrom, VirtualTimeScheduler, type SchedulerLike } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { turnMsgId } from "../../src/broker/queueEvent.js";
import { parseConfigText } from "../../src/config/index.js";
import { cronPlatformsOf } from "../../src/config/cronJobFaults.js";
import { cronJobsOf } from "../../src/cron/cronJobs.js";
import { CronScheduler, type SubmitEvent } from "../../src/cron/cronScheduler.js";
import { UsercronFile } from "../../src/cron/usercronFile.js";
import { MemoryCronMarks, type CronMarks } from "../../src/state/cronMarks.js";
import { captureLogs } from "../helpers/logCapture.js";
import { TOKEN } from "../fakes/discord/fakeDiscordFixture.js";

// The scheduler in virtual time: which minutes it queues, what two processes holding the same
// [cron] queue together, usercron reloads between ticks, and catch_up. What a firing does:
// test/turn/cronTurns.test.ts; the schedule's arithmetic (DST, day-of-week): test/operators/cron/.

const T0 = Date.parse("2026-12-06T09:00:20.000Z");
const MINUTE = 60_000;
const at = (iso: string): number => Date.parse(iso);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configWith(jobs: string, extra = "") {
  return parseConfigText(`[gateway]\nurl = "ws://127.0.0.1:1"\n[discord]\nbot_token = ${JSON.stringify(TOKEN)}\n${extra}\n[cron]\n${jobs}`);
}

/** A clock at `start`, a bus on it (its duplicate window too), and `advance` that lets promises settle between steps. */
function world(start = T0) {
  const clock = new VirtualTimeScheduler();
  clock.frame = start;
  const bus = new MemoryBus({ scheduler: clock });
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const advance = async (ms: number, stepMs = 10_000) => {
    await settle();
    const end = clock.frame + ms;
    while (clock.frame < end) {
      const step = Math.min(end, clock.frame + stepMs);
      clock.maxFrames = step;
      clock.flush();
      clock.frame = step;
      await settle();
    }
  };
  /** What a process queues, as the edge queues it: `platform:event_id` as the message id. */
  const queued: Array<{ readonly event: GatewayEvent; readonly duplicate: boolean; readonly at: number }> = [];
  const submit: SubmitEvent = async (event) => {
    const ack = await firstValueFrom(bus.persist("t.turn.0", event, { msgId: turnMsgId(event) }));
    queued.push({ event, duplicate: ack.duplicate, at: clock.now() });
    return [{ duplicate: ack.duplicate }];
  };
  return { clock, bus, advance, queued, submit, kept: () => queued.filter((one) => !one.duplicate) };
}

describe("CronScheduler", () => {
  it("queues a * * * * * job at each minute boundary of the scheduler's clock, as cron:<job>:<minute>", async () => {
    const w = world();
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const { logger, records } = captureLogs();
    const scheduler = new CronScheduler({ jobs: cronJobsOf(config), catchUp: "none", scheduler: w.clock, logger });
    await scheduler.start(w.submit);
    await w.advance(3 * MINUTE);
    const key = cronJobsOf(config)[0]!.key;
    expect(w.queued.map((one) => [one.at, one.event.event_id])).toEqual([
      [at("2026-12-06T09:01:00.000Z"), `cron:${key}:2026-12-06T09:01:00.000Z`],
      [at("2026-12-06T09:02:00.000Z"), `cron:${key}:2026-12-06T09:02:00.000Z`],
      [at("2026-12-06T09:03:00.000Z"), `cron:${key}:2026-12-06T09:03:00.000Z`],
    ]);
    const first = w.queued[0]!.event;
    expect(first).toMatchObject({
      platform: "discord",
      channel: { id: "c1", thread_id: null },
      sender: { id: "openab-cron", name: "openab-cron", is_bot: true },
      content: { text: "tick" },
      proactive: false,
      cron: { job: key, minute: "2026-12-06T09:01:00.000Z" },
    });
    expect(records.filter((record) => record.msg === "🔔 cronjob fired")).toHaveLength(3);
    expect(records.find((record) => record.msg === "cron scheduler started")).toMatchObject({ baseline: 1, usercron: 0, total: 1 });
    await scheduler.close();
    await w.advance(2 * MINUTE);
    expect(w.queued).toHaveLength(3);
  });

  it("a job only fires on its minutes, in its timezone: 0 9 * * 1-5 in Asia/Taipei over a weekend", async () => {
    const w = world(at("2026-05-08T00:59:00.000Z"));
    const config = configWith(`[[cron.jobs]]\nschedule = "0 9 * * 1-5"\ntimezone = "Asia/Taipei"\nchannel = "c1"\nmessage = "standup"`);
    const scheduler = new CronScheduler({ jobs: cronJobsOf(config), catchUp: "none", scheduler: w.clock, logger: captureLogs().logger });
    await scheduler.start(w.submit);
    // Friday 09:00 in Taipei is 01:00Z; the next is Monday's.
    await w.advance(4 * 24 * 60 * MINUTE, MINUTE);
    expect(w.queued.map((one) => one.event.cron?.minute)).toEqual(["2026-05-08T01:00:00.000Z", "2026-05-11T01:00:00.000Z"]);
    await scheduler.close();
  });

  it("three processes holding the same [cron] queue one firing per minute between them", async () => {
    const w = world();
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const schedulers = [0, 1, 2].map(() => new CronScheduler({ jobs: cronJobsOf(config), catchUp: "none", scheduler: w.clock, logger: captureLogs().logger }));
    for (const scheduler of schedulers) await scheduler.start(w.submit);
    await w.advance(3 * MINUTE);
    expect(w.queued).toHaveLength(9);
    expect(w.kept().map((one) => one.event.cron?.minute)).toEqual(["2026-12-06T09:01:00.000Z", "2026-12-06T09:02:00.000Z", "2026-12-06T09:03:00.000Z"]);
    // One stops: the others go on firing its minutes.
    await schedulers[0]!.close();
    await w.advance(MINUTE);
    expect(w.kept()).toHaveLength(4);
    for (const scheduler of schedulers) await scheduler.close();
  });

  it("reloads the usercron file at each tick: a job added fires in that tick, a changed one by its new schedule, a removed one no more", async () => {
    const dir = mkdtempSync(join(tmpdir(), "usercron-"));
    dirs.push(dir);
    const path = join(dir, "cronjob.toml");
    const w = world();
    const config = configWith("usercron_enabled = true\nusercron_path = " + JSON.stringify(path));
    const { logger, records } = captureLogs();
    const usercron = new UsercronFile({ path, platforms: cronPlatformsOf(config), logger });
    const scheduler = new CronScheduler({ jobs: [], usercron, catchUp: "none", scheduler: w.clock, logger });
    await scheduler.start(w.submit);
    const write = (text: string, mtime: number) => {
      writeFileSync(path, text);
      utimesSync(path, mtime / 1000, mtime / 1000);
    };
    await w.advance(MINUTE);
    expect(w.queued).toEqual([]);
    write(`[[jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "every minute"\n`, 1_000_000);
    await w.advance(MINUTE);
    expect(w.queued.map((one) => one.event.content.text)).toEqual(["every minute"]);
    write(`[[jobs]]\nschedule = "*/2 * * * *"\nchannel = "c1"\nmessage = "every other"\n`, 2_000_000);
    await w.advance(4 * MINUTE);
    expect(w.queued.map((one) => one.event.cron?.minute)).toEqual([
      "2026-12-06T09:02:00.000Z",
      "2026-12-06T09:04:00.000Z",
      "2026-12-06T09:06:00.000Z",
    ]);
    rmSync(path);
    await w.advance(3 * MINUTE);
    expect(w.queued).toHaveLength(3);
    expect(records.filter((record) => record.msg === "usercron file changed, reloading").map((record) => record["count"])).toEqual([1, 1, 0]);
    await scheduler.close();
  });

  it("catch_up = \"last\": a job whose latest minute nobody fired fires it once at start; processes starting together queue it once", async () => {
    const w = world(at("2026-12-06T09:05:30.000Z"));
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const jobs = cronJobsOf(config);
    const marks = new MemoryCronMarks();
    // The last firing anyone made was 09:02; everyone was down since.
    await firstValueFrom(marks.fired(jobs[0]!.key, at("2026-12-06T09:02:00.000Z")), { defaultValue: undefined });
    const { logger, records } = captureLogs();
    const first = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger });
    const second = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger });
    await Promise.all([first.start(w.submit), second.start(w.submit)]);
    await w.advance(0);
    expect(w.kept().map((one) => [one.event.cron?.minute, one.event.cron?.catch_up])).toEqual([["2026-12-06T09:05:00.000Z", true]]);
    expect(records.filter((record) => record.msg === "cronjob missed while no process was up; firing it once")).toHaveLength(2);
    // A third process later finds the mark moved on: nothing to catch up.
    const third = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger });
    await third.start(w.submit);
    await w.advance(0);
    expect(w.queued.filter((one) => one.event.cron?.catch_up === true)).toHaveLength(2);
    for (const scheduler of [first, second, third]) await scheduler.close();
  });

  it("catch_up = \"last\" with no record of a job starts its record and fires nothing late; \"none\" never looks", async () => {
    const w = world();
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const jobs = cronJobsOf(config);
    const marks = new MemoryCronMarks();
    const fresh = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger: captureLogs().logger });
    await fresh.start(w.submit);
    await w.advance(0);
    expect(w.queued).toEqual([]);
    expect(await firstValueFrom(marks.lastFired(jobs[0]!.key))).toBe(at("2026-12-06T09:00:00.000Z"));
    await fresh.close();
    const none = new CronScheduler({ jobs, catchUp: "none", marks: new MemoryCronMarks(), scheduler: w.clock, logger: captureLogs().logger });
    await none.start(w.submit);
    await w.advance(0);
    expect(w.queued).toEqual([]);
    await none.close();
  });

  it("catch_up = \"last\": a second process starting later in a new job's first minute reads its record and fires nothing late", async () => {
    const w = world();
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const jobs = cronJobsOf(config);
    const marks = new MemoryCronMarks();
    const first = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger: captureLogs().logger });
    await first.start(w.submit);
    await w.advance(20_000);
    const { logger, records } = captureLogs();
    const second = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger });
    await second.start(w.submit);
    await w.advance(0);
    expect(w.queued).toEqual([]);
    expect(records.filter((record) => record.msg === "cronjob missed while no process was up; firing it once")).toEqual([]);
    // From the next minute on both fire it, and the bus keeps one.
    await w.advance(30_000);
    expect(w.kept().map((one) => [one.event.cron?.minute, one.event.cron?.catch_up])).toEqual([["2026-12-06T09:01:00.000Z", undefined]]);
    expect(w.queued).toHaveLength(2);
    for (const scheduler of [first, second]) await scheduler.close();
  });

  it("catch_up = \"last\": a minute that begins while the marks are read at start is fired by the tick, after the catch-up", async () => {
    const w = world(at("2026-12-06T09:00:58.000Z"));
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const jobs = cronJobsOf(config);
    const stored = new MemoryCronMarks();
    // The last firing anyone made was 08:58; the marks answer 5 s after they are asked (a slow KV).
    await firstValueFrom(stored.fired(jobs[0]!.key, at("2026-12-06T08:58:00.000Z")), { defaultValue: undefined });
    const marks: CronMarks = { kind: "nats", lastFired: (job) => stored.lastFired(job).pipe(delay(5_000, w.clock)), fired: (job, minute) => stored.fired(job, minute) };
    const scheduler = new CronScheduler({ jobs, catchUp: "last", marks, scheduler: w.clock, logger: captureLogs().logger });
    const started = scheduler.start(w.submit);
    await w.advance(10_000, 1_000);
    await started;
    await w.advance(60_000);
    // 09:00 nobody fired (caught up), 09:01 began during the read, 09:02 as usual.
    expect(w.kept().map((one) => [one.event.cron?.minute, one.event.cron?.catch_up])).toEqual([
      ["2026-12-06T09:00:00.000Z", true],
      ["2026-12-06T09:01:00.000Z", undefined],
      ["2026-12-06T09:02:00.000Z", undefined],
    ]);
    expect(await firstValueFrom(stored.lastFired(jobs[0]!.key))).toBe(at("2026-12-06T09:02:00.000Z"));
    await scheduler.close();
  });

  it("a firing the bus refuses is logged, and the next minute fires as usual", async () => {
    const w = world();
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const { logger, records } = captureLogs();
    let refuse = true;
    const scheduler = new CronScheduler({ jobs: cronJobsOf(config), catchUp: "none", scheduler: w.clock, logger });
    await scheduler.start(async (event) => {
      if (refuse) {
        refuse = false;
        throw new Error("bus down");
      }
      return w.submit(event);
    });
    await w.advance(2 * MINUTE);
    expect(records.find((record) => record.msg === "cronjob firing not queued")).toMatchObject({ reason: "queue_failed" });
    expect(w.queued.map((one) => one.event.cron?.minute)).toEqual(["2026-12-06T09:02:00.000Z"]);
    await scheduler.close();
  });

  it("minutes the clock passed while the process was stalled are not fired (logged once), and the next one is", async () => {
    const w = world();
    const config = configWith(`[[cron.jobs]]\nschedule = "* * * * *"\nchannel = "c1"\nmessage = "tick"`);
    const { logger, records } = captureLogs();
    // A wall clock that can jump while the timers wait: a suspended machine.
    let jumped = 0;
    const wall: SchedulerLike = { now: () => w.clock.now() + jumped, schedule: w.clock.schedule.bind(w.clock) as SchedulerLike["schedule"] };
    const scheduler = new CronScheduler({ jobs: cronJobsOf(config), catchUp: "none", scheduler: wall, logger });
    await scheduler.start(w.submit);
    await w.advance(MINUTE);
    jumped = 10 * MINUTE;
    await w.advance(MINUTE);
    // At 09:02 on the timers the wall says 09:12: 09:02 to 09:10 went by unseen.
    expect(w.queued.map((one) => one.event.cron?.minute)).toEqual(["2026-12-06T09:01:00.000Z", "2026-12-06T09:11:00.000Z", "2026-12-06T09:12:00.000Z"]);
    expect(records.find((record) => record.msg === "cron minutes passed while this process was stalled; not fired")).toMatchObject({ reason: "clock_jumped", minutes: 9 });
    await scheduler.close();
  });
});
