import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lastValueFrom } from "rxjs";
import { openSharedState } from "../../../src/state/kv/sharedState.js";
import type { HistoryEntry } from "../../../operators/ingress/prompt/groupHistory.js";
import { KvHistoryStore, kvHistoryBudget } from "../../../src/state/kv/kvHistoryStore.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { describeHistoryStoreContract } from "../contracts/historyStoreContract.js";
import { natsKvFixture } from "./natsKv.js";

const entry = (id: string): HistoryEntry => ({ messageId: id, sender: "ana", text: `text ${id}` });
const done = (operation: import("rxjs").Observable<unknown>) => lastValueFrom(operation, { defaultValue: undefined });

describe.skipIf(!natsServerAvailable())("KvHistoryStore", () => {
  const nats = natsKvFixture();

  describe("the HistoryStore contract", () => {
    describeHistoryStoreContract(async () => new KvHistoryStore((await nats.bucket()).kv), kvHistoryBudget(undefined));
  });

  describe("the HistoryStore contract with a small budget", () => {
    describeHistoryStoreContract(async () => new KvHistoryStore((await nats.bucket()).kv, { maxBytes: 2_000 }), 2_000);
  });

  describe("the HistoryStore contract, writing through BucketWrites (as openSharedState builds it)", () => {
    describeHistoryStoreContract(async () => {
      const { kv, writes } = await nats.bucketWithWrites();
      return new KvHistoryStore(kv, { writes });
    }, kvHistoryBudget(undefined));
  });

  it("keeps one { entries } record per conversation and deletes it once emptied", async () => {
    const { kv } = await nats.bucket();
    const store = new KvHistoryStore(kv);
    await done(store.append("telegram:g1", entry("1"), 5));
    expect((await kv.get(kvKey("telegram:g1")))?.json()).toEqual({ entries: [entry("1")] });
    await done(store.remove("telegram:g1", [entry("1")]));
    expect((await kv.get(kvKey("telegram:g1")))?.operation).not.toBe("PUT");
  });

  it("loses no entry when several workers append to one conversation at once", async () => {
    const { name } = await nats.bucket();
    const workers = await Promise.all([1, 2, 3].map(async () => new KvHistoryStore(await nats.open(await nats.connect(), name))));
    // Each worker appends one conversation's messages in order (as GroupHistory does), the workers at once.
    await Promise.all(
      workers.map(async (worker, w) => {
        for (const i of [0, 1, 2, 3]) await done(worker.append("telegram:g1", entry(`${w}-${i}`), 100));
      }),
    );
    const kept = await lastValueFrom(workers[0]!.read("telegram:g1"));
    expect(kept.map((e) => e.messageId).sort()).toEqual(["0-0", "0-1", "0-2", "0-3", "1-0", "1-1", "1-2", "1-3", "2-0", "2-1", "2-2", "2-3"]);
  });

  it("rejects with a StateStoreError when a stored record has an unknown shape", async () => {
    const { kv } = await nats.bucket();
    await kv.put(kvKey("telegram:g1"), JSON.stringify({ entries: "nope" }));
    const store = new KvHistoryStore(kv);
    await expect(lastValueFrom(store.read("telegram:g1"))).rejects.toMatchObject({ name: "StateStoreError", store: "history", operation: "read", key: "telegram:g1" });
    await expect(done(store.append("telegram:g1", entry("1"), 5))).rejects.toMatchObject({ name: "StateStoreError", store: "history", operation: "append" });
  });
});

// Issue 36, defect 6: a history record over the server's max_payload failed every write, and the
// worker handed the message back again and again. On a server that takes 64 KiB, the shared state's
// history keeps within the server's limit instead.
const smallServer = mkdtempSync(join(tmpdir(), "turnstream-max-payload-"));
const smallConfig = join(smallServer, "nats.conf");
writeFileSync(smallConfig, "max_payload: 65536\n");
afterAll(() => rmSync(smallServer, { recursive: true, force: true }));

describe.skipIf(!natsServerAvailable())("KvHistoryStore on a server with max_payload 64 KiB", () => {
  const nats = natsKvFixture({ args: ["-c", smallConfig] });
  const big = (id: string): HistoryEntry => ({ messageId: id, sender: "ana", text: `${id} ${"ü".repeat(1_990)}` });

  it("the budget follows the server: HISTORY_MAX_BYTES, or max_payload less room for the write's headers", () => {
    expect(kvHistoryBudget(65_536)).toBe(61_440);
    expect(kvHistoryBudget(1024 * 1024)).toBe(256 * 1024);
    expect(kvHistoryBudget(undefined)).toBe(256 * 1024);
    expect(kvHistoryBudget(1_000)).toBe(0);
  });

  it("openSharedState's history keeps within the server's max_payload: every write lands, the oldest dropped", async () => {
    const nc = await nats.connect();
    expect(nc.info?.max_payload).toBe(65_536);
    const state = await openSharedState(nc, { bus: { prefix: "small", state_ttl_secs: 600 }, inbound: { dedupe_ttl_secs: 60, history_limit: 1000 } });
    const history = state.history;
    if (history === undefined) throw new Error("history_limit > 0 opens the history store");
    let dropped = 0;
    for (let i = 0; i < 40; i++) dropped += (await lastValueFrom(history.append("telegram:g1", big(`m${i}`), 1000))).dropped;
    const kept = await lastValueFrom(history.read("telegram:g1"));
    expect(kept.at(-1)?.messageId).toBe("m39");
    expect(kept.length + dropped).toBe(40);
    expect(Buffer.byteLength(JSON.stringify({ entries: kept }))).toBeLessThanOrEqual(61_440);
  });

  it("without that budget the same writes fail with max_payload exceeded (what the worker handed back)", async () => {
    const { kv } = await nats.bucket();
    const store = new KvHistoryStore(kv, { maxBytes: 1024 * 1024 });
    let failure: unknown;
    for (let i = 0; i < 40 && failure === undefined; i++) {
      await done(store.append("telegram:g1", big(`m${i}`), 1000)).catch((err: unknown) => (failure = err));
    }
    expect(failure).toMatchObject({ name: "StateStoreError", store: "history", operation: "append" });
    expect(String((failure as Error).cause)).toContain("max_payload");
  });
});
