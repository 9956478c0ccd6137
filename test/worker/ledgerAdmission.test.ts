import { concat, firstValueFrom, lastValueFrom, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { MemoryDeliveryLedger, type DeliveryLedger } from "../../src/state/deliveryLedger.js";
import { StateStoreError } from "../../src/state/errors.js";
import { maxAttempts } from "../../src/turn/turnLedger.js";
import { admitByLedger, type Admission } from "../../src/worker/ledgerAdmission.js";
import { captureLogs } from "../helpers/logCapture.js";
import { gatewayEvent } from "../helpers/events.js";
import { countingLedger, held } from "../helpers/ledgers.js";

describe("admitByLedger", () => {
  const options = (ledger: DeliveryLedger) => ({ ledger, now: 10, logger: captureLogs().logger, retryInMs: 1_000 });

  it("admits first deliveries synchronously without asking the ledger anything", () => {
    const { ledger, ops } = countingLedger();
    const items = [held(gatewayEvent({ event_id: "a" }), 1), held(gatewayEvent({ event_id: "b" }), 1)];
    const seen: Admission<GatewayEvent>[] = [];
    admitByLedger(items, options(ledger)).subscribe((admission) => seen.push(admission));
    expect(seen).toEqual([{ run: items, marked: false, deferred: false, done: 0, exhausted: 0, recovered: 0 }]);
    expect(ops).toEqual([]);
  });

  it("reads a redelivered event once and writes nothing for one it runs", async () => {
    const { ledger, ops } = countingLedger();
    const item = held(gatewayEvent({ event_id: "a" }), 2);
    // No record for a redelivery: its first attempt never got to send. It re-runs, unmarked, and counts as recovered.
    await expect(firstValueFrom(admitByLedger([item], options(ledger)))).resolves.toEqual({ run: [item], marked: false, deferred: false, done: 0, exhausted: 0, recovered: 1 });
    expect(ops).toEqual(["read telegram:a"]);
  });

  it("acks a completed redelivery, marks one whose attempt began sending, gives up an exhausted one (recording it complete)", async () => {
    const memory = new MemoryDeliveryLedger();
    await lastValueFrom(concat(memory.complete("telegram:done", 1), memory.begin("telegram:sent", 1), memory.begin("telegram:twice", 1), memory.begin("telegram:twice", 2)));
    const { logger, records } = captureLogs();
    const [done, sent, twice, first] = [held(gatewayEvent({ event_id: "done" }), 2), held(gatewayEvent({ event_id: "sent" }), 2), held(gatewayEvent({ event_id: "twice" }), 3), held(gatewayEvent({ event_id: "new" }), 1)];
    const admission = await firstValueFrom(admitByLedger([done, sent, twice, first], { ledger: memory, now: 10, logger, retryInMs: 1_000 }));
    // What it settled and what it recovers are counted (turnstream_events_total, turnstream_recovered_turns_total).
    expect(admission).toEqual({ run: [sent, first], marked: true, deferred: false, done: 1, exhausted: 1, recovered: 1 });
    expect([done.acks(), sent.acks(), twice.acks(), first.acks()]).toEqual([1, 0, 1, 0]);
    expect(records.map(({ msg, reason, event_id }) => [msg, reason, event_id])).toEqual([
      ["completed turn not repeated", "already_delivered", "done"],
      ["interrupted turn re-run", "recovered", "sent"],
      ["interrupted turn not re-run again", "rerun_exhausted", "twice"],
    ]);
    await expect(firstValueFrom(memory.read("telegram:twice"))).resolves.toMatchObject({ state: "complete" });
  });

  it("gives up a redelivery that never sent anything after maxAttempts deliveries, by deliveryCount alone", async () => {
    const { ledger } = countingLedger();
    const again = held(gatewayEvent({ event_id: "a" }), maxAttempts);
    const tooMany = held(gatewayEvent({ event_id: "b" }), maxAttempts + 1);
    const admission = await firstValueFrom(admitByLedger([again, tooMany], options(ledger)));
    expect(admission.run).toEqual([again]);
    expect(tooMany.acks()).toBe(1);
  });

  it("defers a turn whose records cannot be read, settling nothing", async () => {
    const failing: DeliveryLedger = { ...countingLedger().ledger, read: () => throwError(() => new StateStoreError("ledger", "read", "k")) };
    const { logger, records } = captureLogs();
    const item = held(gatewayEvent(), 2);
    await expect(firstValueFrom(admitByLedger([item], { ledger: failing, now: 1, logger, retryInMs: 1_000 }))).resolves.toEqual({ run: [], marked: false, deferred: true, done: 0, exhausted: 0, recovered: 0 });
    expect(item.acks()).toBe(0);
    expect(records).toMatchObject([{ msg: "turn deferred", reason: "ledger_unavailable", retryInMs: 1_000 }]);
  });
});

