import { describe, expect, it } from "vitest";
import { heldPartitions, useNatsCluster, type Member } from "../helpers/cluster.js";
import { cronDeployment, cronTally, expectOneTurnPerMinute } from "../helpers/cronCluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";

// Issue 40's "exactly once across processes" on the wall clock, in npm run test:load: three
// spawned `turnstream run --role all` processes with the same config.toml [cron] (a * * * * * job
// on the dev gateway's platform) on a real nats-server, over three real minutes, one of them
// killed -9 in the middle. Its sibling in npm test, cronScaleOut.test.ts, runs brokers in the
// test's process on a clock 30 times faster, and catch_up = "last" too.

const available = natsServerAvailable();
const PARTITIONS = 16;
const ran = (member: Member) => member.logs.filter((line) => line.msg === "cronjob running").map((line) => String(line.minute));

describe.skipIf(!available)("[cron] across spawned processes on NATS, real minutes", () => {
  const nats = useNatsCluster();

  it("3 processes: one turn per minute over three minutes (one 🕐 post, one answer), also after the one running them is killed -9", async () => {
    const cluster = await nats.start(cronDeployment("cronload"));
    const members = await Promise.all(["a", "b", "c"].map((name) => cluster.add("all", name)));
    const held = () => new Set(members.flatMap((member) => [...heldPartitions(member)])).size;
    expect(await until(() => held() === PARTITIONS, 30_000)).toBe(true);
    const tally = () => cronTally(cluster.members.flatMap((member) => member.logs), cluster.replies);
    // Every firing that ran was answered and settled (acked, complete in the ledger).
    const settled = () => {
      const now = tally();
      return now.answers === now.runs.length && now.posts === now.runs.length && now.completed.join() === now.runs.join();
    };

    // The first minute all three were up for, then the process that ran it is killed between
    // turns. (Killed during a turn, it leaves the turn unacked: it runs again elsewhere, marked —
    // docs/scaling.md.)
    const allUp = Date.now();
    expect(await until(() => tally().runs.some((minute) => Date.parse(minute) > allUp) && settled(), 75_000)).toBe(true);
    const killedAfter = tally().runs.at(-1)!;
    const runner = members.find((member) => ran(member).includes(killedAfter))!;
    runner.kill9();
    await runner.exited;
    const killedAt = Date.now();
    expect(await until(() => tally().runs.filter((minute) => minute > killedAfter).length >= 2 && settled(), 150_000)).toBe(true);
    const took = Number(cluster.members.flatMap((member) => member.logs).find((line) => line.msg === "cronjob running" && String(line.minute) > killedAfter)!.time) - Date.parse(killedAfter) - 60_000;
    console.log(`cron across 3 processes, the runner killed -9 ${Math.round((killedAt - Date.parse(killedAfter)) / 1000)} s into ${killedAfter}: the next minute ran ${took} ms after it began`);
    await cluster.stop();

    const final = tally();
    expectOneTurnPerMinute(final, 3);
    const queuedBy = (minutes: string[]) => minutes.map((minute) => final.submitted.get(minute) ?? 0);
    expect(Math.max(...queuedBy(final.runs.filter((minute) => minute <= killedAfter)))).toBe(3);
    const after = queuedBy(final.runs.filter((minute) => minute > killedAfter));
    expect(after).toContain(2);
    expect(Math.max(...after)).toBe(2);
    expect(ran(runner).filter((minute) => minute > killedAfter)).toEqual([]);
  }, 270_000);
});
