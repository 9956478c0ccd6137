import { asyncScheduler, firstValueFrom, from, lastValueFrom, mergeMap, type Observable, of, type SchedulerLike, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { triage } from "../../../operators/triage/triage.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { KvTriageStore } from "../../../src/state/kv/kvTriageStore.js";
import { StateStoreError } from "../../../src/state/errors.js";
import { gatewayEvent } from "../../helpers/events.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { enabled } from "../../operators/triage/conversations.js";
import { describeTriageStoreContract } from "../contracts/triageStoreContract.js";
import { natsKvFixture } from "./natsKv.js";

describe.skipIf(!natsServerAvailable())("KvTriageStore", () => {
  const nats = natsKvFixture();

  describe("the TriageStore contract", () => {
    describeTriageStoreContract(async () => new KvTriageStore((await nats.bucket()).kv));
  });

  it("errors the read with a StateStoreError when the stored value is not a TriageState", async () => {
    const { kv } = await nats.bucket();
    await kv.put(kvKey("telegram:c1"), JSON.stringify({ count: -1 }));
    await kv.put(kvKey("telegram:c2"), "{not json");
    const store = new KvTriageStore(kv);
    for (const key of ["telegram:c1", "telegram:c2"]) {
      const error = await firstValueFrom(store.read(key)).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateStoreError);
      expect(error).toMatchObject({ store: "triage", operation: "read", key, message: "triage state: read failed" });
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
    // A sweep refuses to judge (or delete) a value it cannot read: it may be a newer version's.
    await expect(firstValueFrom(store.sweep(Number.MAX_SAFE_INTEGER))).rejects.toBeInstanceOf(StateStoreError);
    expect((await kv.get(kvKey("telegram:c2")))?.string()).toBe("{not json");
  });

  it("errors every operation with a StateStoreError carrying the client's error when the connection is closed", async () => {
    const nc = await nats.connect();
    const { name } = await nats.bucket();
    const store = new KvTriageStore(await nats.open(nc, name));
    await nc.close();
    const operations: Observable<unknown>[] = [store.read("k"), store.compareAndSet("k", { count: 0 }, undefined), store.compareAndSet("k", { count: 0 }, 3), store.sweep(0)];
    for (const operation of operations) {
      const error = await firstValueFrom(operation).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateStoreError);
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });

  it("lets exactly daily_cap proactive events wake one conversation when 3 workers triage 10 of them at once", async () => {
    const { name } = await nats.bucket();
    const workers = await Promise.all([1, 2, 3].map(async () => new KvTriageStore(await nats.open(await nats.connect(), name))));
    // Every event records its id (dedupe window on), so each one writes: the harshest contention.
    // It stays within TRIAGE_MAX_ATTEMPTS: a conflict means another event's write landed, and
    // there are only 9 others.
    const settings = enabled({ dailyCap: 3, cooldownSecs: 0, dedupeWindowSecs: 3600 });
    // A fixed clock: a run across midnight must not open a new day's allowance.
    const clock: SchedulerLike = { now: () => Date.parse("2026-08-25T12:00:00Z"), schedule: asyncScheduler.schedule.bind(asyncScheduler) };
    const events = Array.from({ length: 10 }, (_, i) => gatewayEvent({ event_id: `evt-${i}`, message_id: "", proactive: true, channel: { id: "room", type: "group" } }));
    // As the agent turn handler does: one triage run per event, all in flight together.
    const decisions = await lastValueFrom(
      from(events).pipe(
        mergeMap((event, i) => of(event).pipe(triage({ settings, store: workers[i % 3] as KvTriageStore, scheduler: clock }))),
        toArray(),
      ),
    );
    const outcomes = decisions.map(({ verdict }) => (verdict.decision === "wake" ? "wake" : verdict.reason));
    expect(outcomes.filter((outcome) => outcome === "wake")).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome !== "wake")).toEqual(Array(7).fill("daily_cap"));
    const stored = await firstValueFrom(new KvTriageStore((await nats.open(await nats.connect(), name))).read("telegram:room"));
    expect(stored?.state).toMatchObject({ count: 3, day: "2026-08-25" });
  });
});
