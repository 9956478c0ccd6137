import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, lastValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { JournalOpenError } from "../../src/bus/errors.js";
import { StateStoreError } from "../../src/state/errors.js";
import { FileDeliveryLedger } from "../../src/state/fileDeliveryLedger.js";
import { captureLogs } from "../helpers/logCapture.js";
import { describeDeliveryLedgerContract } from "./contracts/deliveryLedgerContract.js";

// The embedded bus's delivery ledger, in a JSON-lines file beside its turn-queue journal: a turn
// the journal brings back after a crash finds what its interrupted attempt did.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledgerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-ledger-"));
  dirs.push(dir);
  return join(dir, "state", "delivery-ledger.journal");
}

function open(path: string, max?: number) {
  const { logger, records } = captureLogs();
  return { ledger: FileDeliveryLedger.open(path, logger, max === undefined ? {} : { max }), records };
}

const value = <T>(observable: import("rxjs").Observable<T>) => firstValueFrom(observable);
const written = (observable: import("rxjs").Observable<never>) => lastValueFrom(observable, { defaultValue: undefined });
/** The end of the current job: records other than `begin` are written before the event loop turns. */
const jobEnds = () => new Promise((resolve) => setImmediate(resolve));

describe("FileDeliveryLedger: the DeliveryLedger contract", () => {
  describeDeliveryLedgerContract(() => open(ledgerPath()).ledger);
});

describe("FileDeliveryLedger", () => {
  it("keeps its records across a crash: what an interrupted attempt began, what completed", async () => {
    const path = ledgerPath();
    const first = open(path).ledger;
    await value(first.begin("telegram:tg1", 10));
    await written(first.delivered("telegram:tg1", 1, 11, { id: "msg-7", kind: "placeholder" }));
    await value(first.begin("telegram:tg2", 12));
    await written(first.complete("telegram:tg2", 13));
    await written(first.complete("telegram:tg3", 14)); // a turn that sent nothing
    await jobEnds(); // then the crash: `first` is never closed

    const { ledger } = open(path);
    await expect(value(ledger.read("telegram:tg1"))).resolves.toEqual({ state: "started", attempts: 1, delivered: 1, updatedAt: 11, placeholders: ["msg-7"] });
    await expect(value(ledger.read("telegram:tg2"))).resolves.toEqual({ state: "complete", attempts: 1, delivered: 0, updatedAt: 13 });
    await expect(value(ledger.read("telegram:tg3"))).resolves.toEqual({ state: "complete", attempts: 0, delivered: 0, updatedAt: 14 });
  });

  it("writes begin at once, before the first message can leave, even if the process dies in the same job", async () => {
    const path = ledgerPath();
    const first = open(path).ledger;
    await value(first.begin("telegram:tg1", 10)); // no jobEnds: the crash comes right after
    await expect(value(open(path).ledger.read("telegram:tg1"))).resolves.toMatchObject({ state: "started", attempts: 1 });
  });

  it("keeps the max most recently written records after a restart, and rewrites the file with only those", async () => {
    const path = ledgerPath();
    const first = open(path, 2).ledger;
    for (const key of ["a", "b", "c"]) await value(first.begin(key, 1));
    await jobEnds();
    const { ledger } = open(path, 2);
    await expect(value(ledger.read("a"))).resolves.toBeUndefined();
    await expect(value(ledger.read("c"))).resolves.toMatchObject({ state: "started" });
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { k?: string }).k)).toEqual([undefined, "b", "c"]);
  });

  it("skips a torn last line and a corrupt one with a warning naming each, and reads the rest", async () => {
    const path = ledgerPath();
    const first = open(path).ledger;
    await value(first.begin("telegram:tg1", 10));
    appendFileSync(path, "}{ not a record\n");
    await value(first.begin("telegram:tg2", 11));
    appendFileSync(path, '{"k":"telegram:tg3","r":{"state":"sta');

    const { ledger, records } = open(path);
    expect(records.filter((r) => r.msg === "delivery ledger line skipped").map((r) => [r.reason, r.line])).toEqual([
      ["journal_corrupt_line", 2],
      ["journal_torn_line", 4],
    ]);
    await expect(value(ledger.read("telegram:tg2"))).resolves.toMatchObject({ state: "started" });
    await expect(value(ledger.read("telegram:tg3"))).resolves.toBeUndefined();
    await value(ledger.begin("telegram:tg4", 12));
    expect(open(path).records.filter((r) => r.msg === "delivery ledger line skipped")).toEqual([]);
  });

  it("refuses a ledger file of another format version", () => {
    const path = ledgerPath();
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, '{"journal":"turnstream delivery ledger","v":7}\n');
    expect(() => open(path)).toThrow(JournalOpenError);
  });

  it("rewrites itself while running once old lines dominate", async () => {
    const path = ledgerPath();
    const { ledger } = open(path, 100);
    for (let i = 0; i < 12_000; i++) await value(ledger.begin(`k${i % 50}`, i));
    await jobEnds();
    expect(readFileSync(path, "utf8").trim().split("\n").length).toBeLessThan(10_100);
    await expect(value(open(path, 100).ledger.read("k49"))).resolves.toMatchObject({ attempts: 240 });
  });

  it("errors begin with StateStoreError when its record cannot be written, so nothing is sent", async () => {
    const path = ledgerPath();
    const { ledger } = open(path);
    writeFileSync(join(path, ".."), "a file where the ledger's directory should be");
    await expect(value(ledger.begin("telegram:tg1", 10))).rejects.toBeInstanceOf(StateStoreError);
  });
});
