import { asyncScheduler, firstValueFrom, from, lastValueFrom, mergeMap, type Observable, of, type SchedulerLike, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import type { SeenWork } from "../../../operators/triage/seenWindow.js";
import type { TriageState } from "../../../operators/triage/triageState.js";
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

  describe("the TriageStore contract, writing through BucketWrites (as openSharedState builds it)", () => {
    describeTriageStoreContract(async () => {
      const { kv, writes } = await nats.bucketWithWrites();
      return new KvTriageStore(kv, { writes });
    });
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

  it("reads back its own last write as the very state written, so a decision on 1,000 remembered ids stays O(1); another worker's write is parsed", async () => {
    const { kv, name } = await nats.bucket();
    const store = new KvTriageStore(kv);
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    const t = Date.parse("2026-08-25T12:00:00Z");
    let state: TriageState | undefined;
    for (let i = 0; i < 1_000; i++) state = admit(state, `gmail-thread-${i}`, cfg, t + i * 3600).state;
    expect(await firstValueFrom(store.compareAndSet("telegram:room", state as TriageState, undefined))).toBe(true);
    let total = 0;
    for (let i = 0; i < 40; i++) {
      const entry = await firstValueFrom(store.read("telegram:room"));
      expect(entry?.state).toBe(state);
      const work: SeenWork = { entries: 0 };
      state = admit(entry?.state, `later-${i}`, cfg, t + 3_600_000 + i * 3600, work).state;
      total += work.entries;
      expect(await firstValueFrom(store.compareAndSet("telegram:room", state, entry?.revision))).toBe(true);
    }
    expect(total / 40).toBeLessThanOrEqual(12);
    // Another worker's store holds no such object: it parses the value (and equals it).
    const other = await firstValueFrom(new KvTriageStore(await nats.open(await nats.connect(), name)).read("telegram:room"));
    expect(other?.state).not.toBe(state);
    expect(other?.state).toEqual(state);
  });
});
