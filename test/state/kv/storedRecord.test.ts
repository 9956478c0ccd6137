import { describe, expect, it } from "vitest";
import { isLedgerRecord, type LedgerRecord } from "../../../src/state/ledgerRecord.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { casUpdate, KnownRecords, type RecordBucket } from "../../../src/state/kv/storedRecord.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { natsKvFixture } from "./natsKv.js";

const record = (state: LedgerRecord["state"]): LedgerRecord => ({ state, attempts: 0, delivered: 0, updatedAt: 1 });

describe.skipIf(!natsServerAvailable())("casUpdate's memory of its own writes (real nats-server)", () => {
  const nats = natsKvFixture();

  it("remembers a write it may build on, and forgets a final one (the ledger's complete: one per event)", async () => {
    const { kv } = await nats.bucket();
    const known = new KnownRecords<LedgerRecord>();
    const bucket: RecordBucket<LedgerRecord> & { known: KnownRecords<LedgerRecord> } = { kv, writes: kv, store: "ledger", known, isValue: isLedgerRecord };
    await casUpdate(bucket, "begin", "telegram:a", () => ({ result: undefined, next: record("started") }));
    expect(known.get(kvKey("telegram:a"))?.value.state).toBe("started");
    await casUpdate(bucket, "complete", "telegram:a", () => ({ result: undefined, next: record("complete") }), undefined, { final: true });
    await casUpdate(bucket, "complete", "telegram:b", () => ({ result: undefined, next: record("complete") }), undefined, { final: true });
    expect(known.get(kvKey("telegram:a"))).toBeUndefined();
    expect(known.get(kvKey("telegram:b"))).toBeUndefined();
    // Forgetting costs correctness nothing: a later write of the key reads and compares-and-sets again.
    const again = await casUpdate(bucket, "begin", "telegram:b", (current) => ({ result: current?.state, next: record("started") }));
    expect(again).toBe("complete");
  });
});
