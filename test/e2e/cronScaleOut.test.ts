import type { SchedulerLike } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { CronBrokers, expectOneTurnPerMinute, minutesBetween, type CronBroker } from "../helpers/cronCluster.js";
import { fastClock } from "../helpers/fastClock.js";
import { natsServerAvailable, useNatsServer } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";

// Issue 40's acceptance "exactly once across processes": three brokers holding the same [cron] on
// one nats-server each queue every firing (message id cron:<job>:<minute>), JetStream's duplicate
// window keeps one, and one turn runs per minute, wherever it runs. Brokers in this process, each
// --role all with its own NATS connection, all on ONE dev gateway (every post and answer is
// received once, where it is counted) and ONE fast clock (30 times the wall's: a minute every
// 2 s), so they agree on the minute. Real minutes and spawned processes killed -9:
// cronScaleOut.load.test.ts. One broker on the embedded bus: cronChats.test.ts.

const SPEED = 30;
const MINUTE = 60_000;
const MISSED = "cronjob missed while no process was up; firing it once";
const available = natsServerAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logged = (member: CronBroker, msg: string) => member.records.filter((line) => line.msg === msg);

describe.skipIf(!available)("[cron] across processes on NATS", () => {
  const nats = useNatsServer();
  let cluster: CronBrokers | undefined;
  let runs = 0;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  /** Three brokers on a fresh prefix (stream, leases and marks start empty), every partition held. */
  const threeBrokers = async (clock: SchedulerLike, catchUp: "none" | "last") => {
    cluster = await CronBrokers.start({ natsUrl: nats.server.url, prefix: `cron${process.pid}_${++runs}`, clock, catchUp });
    const brokers = cluster;
    await Promise.all(["a", "b", "c"].map((name) => brokers.add(name)));
    await brokers.leased();
    return brokers;
  };
  /** Every firing that ran was answered and settled (acked, complete in the ledger): stopping a broker now abandons no turn. */
  const settled = (brokers: CronBrokers) => {
    const tally = brokers.tally();
    return tally.answers === tally.runs.length && tally.posts === tally.runs.length && tally.completed.join() === tally.runs.join();
  };

  it("three brokers: one turn per minute (one 🕐 post, one answer), also after the one running them stops abruptly", async () => {
    const brokers = await threeBrokers(fastClock(SPEED), "none");
    expect(await until(() => brokers.tally().runs.length >= 2 && settled(brokers), 20_000)).toBe(true);

    // Mid-way, between turns: the broker that ran the latest firing stops, waiting for nothing. (One
    // stopped during a turn leaves it unacked: it is run again elsewhere, marked — docs/scaling.md.)
    const stoppedAfter = brokers.tally().runs.at(-1)!;
    const runner = brokers.members.find((member) => logged(member, "cronjob running").some((line) => line.minute === stoppedAfter))!;
    await brokers.stopOne(runner, 0);
    expect(await until(() => brokers.tally().runs.filter((minute) => minute > stoppedAfter).length >= 2 && settled(brokers), 30_000)).toBe(true);
    await brokers.stop();
    // Nothing arrives late a second time.
    await sleep(500);

    const tally = brokers.tally();
    expectOneTurnPerMinute(tally, 4);
    const queuedBy = (minutes: string[]) => minutes.map((minute) => tally.submitted.get(minute) ?? 0);
    const before = queuedBy(tally.runs.filter((minute) => minute <= stoppedAfter));
    const after = queuedBy(tally.runs.filter((minute) => minute > stoppedAfter));
    expect(before).toContain(3);
    expect(Math.max(...before)).toBe(3);
    expect(after).toContain(2);
    expect(Math.max(...after)).toBe(2);
    // The stopped one's partitions went to the others, which ran the later firings.
    expect(logged(runner, "cronjob running").filter((line) => String(line.minute) > stoppedAfter)).toEqual([]);
  }, 60_000);

  it('catch_up = "last": all three down for two minutes, one started again fires the latest minute once, a second started right after fires nothing late', async () => {
    const clock = fastClock(SPEED);
    const brokers = await threeBrokers(clock, "last");
    expect(await until(() => brokers.tally().runs.length >= 1 && settled(brokers), 20_000)).toBe(true);
    await Promise.all(brokers.members.map((member) => brokers.stopOne(member, 5_000)));
    const lastFired = (await brokers.lastMarked())!;
    expect(new Date(lastFired).toISOString()).toBe(brokers.tally().fired.at(-1));

    // The clock passes two whole minutes with nobody up; then one broker starts, early in a minute.
    const d = await brokers.connect("d");
    expect(await until(() => clock.now() >= lastFired + 3 * MINUTE && clock.now() % MINUTE < MINUTE / 4, 20_000)).toBe(true);
    await brokers.start(d);
    expect(await until(() => brokers.dispatched.some((one) => one.cron.catch_up === true) && settled(brokers), 20_000)).toBe(true);
    const caughtUp = brokers.dispatched.find((one) => one.cron.catch_up === true)!.cron.minute;
    expect(Date.parse(caughtUp)).toBeGreaterThanOrEqual(lastFired + 3 * MINUTE);
    expect(logged(d, MISSED)).toMatchObject([{ minute: caughtUp, lastFired: new Date(lastFired).toISOString() }]);

    // A second one right after: once the first recorded the minute the clock is in, early in it, so
    // that no boundary passes before the second reads the marks (a minute the first is firing just
    // then would be a duplicate anyway, but the run could not tell "nothing late" from "late, and dropped").
    const e = await brokers.connect("e");
    expect(await markedEarlyInMinute(brokers, clock, 20_000)).toBe(true);
    await brokers.start(e);
    // It joins the ticks: the next minute is queued by both and runs once.
    const startedAt = clock.now();
    expect(await until(() => brokers.tally().runs.some((minute) => Date.parse(minute) > startedAt) && settled(brokers), 20_000)).toBe(true);
    await brokers.stop();
    await sleep(500);

    const tally = brokers.tally();
    expect(logged(e, MISSED)).toEqual([]);
    expect(brokers.dispatched.filter((one) => one.cron.catch_up === true)).toMatchObject([{ broker: "d", cron: { minute: caughtUp } }]);
    expect(tally.submitted.get(tally.runs.at(-1)!)).toBe(2);
    // Minutes nobody was up for are not fired, but for the latest; every other minute ran once.
    const early = tally.runs.filter((minute) => Date.parse(minute) <= lastFired);
    expect(early).toEqual(minutesBetween(early[0]!, new Date(lastFired).toISOString()));
    expect(tally.runs.filter((minute) => Date.parse(minute) > lastFired)).toEqual(minutesBetween(caughtUp, tally.runs.at(-1)!));
    expect(tally.posts).toBe(tally.runs.length);
    expect(tally.answers).toBe(tally.runs.length);
  }, 60_000);
});

/** Waits until the marks hold the minute the clock is in, in its first quarter. */
async function markedEarlyInMinute(brokers: CronBrokers, clock: SchedulerLike, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(20)) {
    const minute = Math.floor(clock.now() / MINUTE) * MINUTE;
    const marked = await brokers.lastMarked();
    if (marked !== undefined && marked >= minute && clock.now() - minute < MINUTE / 4) return true;
  }
  return false;
}
