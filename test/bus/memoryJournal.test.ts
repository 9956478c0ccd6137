import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VirtualTimeScheduler } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import type { DurableMessage, PersistAck, PersistOptions } from "../../src/bus/bus.js";
import { JournalOpenError, JournalWriteError } from "../../src/bus/errors.js";
import { MemoryBus, type MemoryBusJournal } from "../../src/bus/memoryBus.js";
import { captureLogs } from "../helpers/logCapture.js";

// The embedded bus's turn-queue journal (issue 38 item 4): what was appended survives the process.
// A "crash" here is a bus dropped without close(): everything it wrote went out with one
// synchronous write each, which is what a killed process leaves in the page cache.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journalPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-journal-"));
  dirs.push(dir);
  return join(dir, "state", "turn-queue.journal");
}

/** A bus journaling to `path`, on a clock the test moves, and its log lines. */
function open(path: string, options: { clock?: VirtualTimeScheduler; windowMs?: number; replaySubject?: MemoryBusJournal["replaySubject"] } = {}) {
  const { logger, records } = captureLogs();
  const scheduler = options.clock ?? new VirtualTimeScheduler();
  const bus = new MemoryBus({
    scheduler,
    ...(options.windowMs === undefined ? {} : { duplicateWindowMs: options.windowMs }),
    journal: { path, logger, ...(options.replaySubject === undefined ? {} : { replaySubject: options.replaySubject }) },
  });
  return { bus, records };
}

function persist(bus: MemoryBus, subject: string, data: unknown, options?: PersistOptions): PersistAck {
  return bus.persistNow(subject, data, options);
}

/** Subscribes a durable consumer and returns what it received (held unless acked by the caller). */
function consume(bus: MemoryBus, filter: string, durable = `w-${filter}`): DurableMessage<unknown>[] {
  const got: DurableMessage<unknown>[] = [];
  bus.consume(filter, { durable }).subscribe((message) => got.push(message));
  return got;
}

/** The end of the current job: acks are written before the event loop turns (a crash is simulated after it). */
const jobEnds = () => new Promise((resolve) => setImmediate(resolve));

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter((line) => line !== "");

describe("MemoryBus with a journal", () => {
  it("queues again after a crash what was appended and not acked, in sequence order, redelivered if it was handed out, the counter continuing", async () => {
    const path = journalPath();
    const first = open(path).bus;
    persist(first, "t.0", { n: 1 }, { msgId: "m1" });
    persist(first, "t.1", { n: 2 }, { msgId: "m2" });
    persist(first, "t.0", { n: 3 }, { msgId: "m3" });
    persist(first, "t.0", { n: 4 });
    const held = consume(first, "t.0");
    expect(held.map((m) => m.data)).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
    held[0]!.ack();
    await jobEnds(); // then the crash: `first` is never closed

    const { bus, records } = open(path);
    const t0 = consume(bus, "t.0");
    const t1 = consume(bus, "t.1");
    expect(t0.map((m) => [m.seq, m.data, m.msgId, m.deliveryCount])).toEqual([
      [3, { n: 3 }, "m3", 2],
      [4, { n: 4 }, undefined, 2],
    ]);
    // Never handed out before the crash: it arrives as new.
    expect(t1.map((m) => [m.seq, m.data, m.deliveryCount])).toEqual([[2, { n: 2 }, 1]]);
    expect(persist(bus, "t.0", { n: 5 })).toEqual({ seq: 5, duplicate: false });
    expect(records.find((r) => r.msg === "turn queue read from its journal")).toMatchObject({ queued: 3, skipped: 0 });
  });

  it("restores msgIds into the duplicate window: a queued one and an acked one still inside it collapse", async () => {
    const path = journalPath();
    const first = open(path).bus;
    persist(first, "t.0", "a", { msgId: "telegram:tg1" });
    persist(first, "t.0", "b", { msgId: "telegram:tg2" });
    consume(first, "t.0")[0]!.ack();
    await jobEnds();

    const { bus } = open(path);
    expect(persist(bus, "t.0", "a again", { msgId: "telegram:tg1" })).toEqual({ seq: 1, duplicate: true });
    expect(persist(bus, "t.0", "b again", { msgId: "telegram:tg2" })).toEqual({ seq: 2, duplicate: true });
    expect(consume(bus, "t.0").map((m) => m.data)).toEqual(["b"]);
  });

  it("keeps an acked msgId for what was left of its window at the last append before the crash, however long the process was down", async () => {
    const path = journalPath();
    const clock = new VirtualTimeScheduler();
    const first = open(path, { clock, windowMs: 1_000 }).bus;
    persist(first, "t.0", "old", { msgId: "old" });
    clock.frame = 600;
    persist(first, "t.0", "recent", { msgId: "recent" });
    for (const message of consume(first, "t.0")) message.ack();
    await jobEnds();
    // the crash, after the last append: "old" had 400 ms of its window left, "recent" 1,000

    const later = new VirtualTimeScheduler();
    later.frame = 3_600_000; // an hour down
    const { bus } = open(path, { clock: later, windowMs: 1_000 });
    later.frame += 300;
    expect(persist(bus, "t.0", "x", { msgId: "old" })).toEqual({ seq: 1, duplicate: true });
    later.frame += 200;
    expect(persist(bus, "t.0", "y", { msgId: "old" }).duplicate).toBe(false);
    expect(persist(bus, "t.0", "z", { msgId: "recent" })).toEqual({ seq: 2, duplicate: true });
  });

  it("delivers replayed messages before newer ones, per subject, once a consumer attaches", async () => {
    const path = journalPath();
    const first = open(path).bus;
    for (let i = 1; i <= 6; i++) persist(first, `t.${i % 2}`, i);
    const held = consume(first, "t.0");
    held.find((m) => m.data === 4)!.ack(); // acked out of order
    await jobEnds();

    const { bus } = open(path);
    persist(bus, "t.0", 7);
    persist(bus, "t.1", 8);
    expect(consume(bus, "t.0").map((m) => m.data)).toEqual([2, 6, 7]);
    expect(consume(bus, "t.1").map((m) => m.data)).toEqual([1, 3, 5, 8]);
  });

  it("moves a replayed message to the subject replaySubject names", () => {
    const path = journalPath();
    const first = open(path).bus;
    persist(first, "old.7", { to: "new.1" });
    persist(first, "old.7", { to: "new.2" });

    const { bus } = open(path, { replaySubject: (_subject, data) => (data as { to: string }).to });
    expect(consume(bus, "new.1").map((m) => m.data)).toEqual([{ to: "new.1" }]);
    expect(consume(bus, "new.2").map((m) => m.data)).toEqual([{ to: "new.2" }]);
  });

  it("counts deliveries across restarts, so a message that crashes the process every time is given up", async () => {
    const path = journalPath();
    persist(open(path).bus, "t.0", "poison");
    const counts: number[] = [];
    for (let restart = 0; restart < 3; restart++) {
      counts.push(consume(open(path).bus, "t.0")[0]!.deliveryCount);
      await jobEnds();
    }
    expect(counts).toEqual([1, 2, 3]);
  });

  it("rewrites the file at start-up with only what is still queued, and the header carries the sequence on", async () => {
    const path = journalPath();
    const first = open(path).bus;
    for (let i = 1; i <= 5; i++) persist(first, "t.0", i);
    for (const message of consume(first, "t.0")) if (message.data !== 3) message.ack();
    await jobEnds();
    expect(lines(path)).toHaveLength(5 + 5 + 4); // appends, deliveries, acks

    open(path);
    const rewritten = lines(path).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rewritten).toHaveLength(2);
    expect(rewritten[0]).toMatchObject({ journal: "turnstream turn queue", v: 1, seq: 5 });
    expect(rewritten[1]).toMatchObject({ q: 3, s: "t.0", d: 3, n: 1 });
  });

  it("skips a torn last line with a warning naming it, and the next append starts on a line of its own", () => {
    const path = journalPath();
    persist(open(path).bus, "t.0", "whole");
    appendFileSync(path, '{"q":2,"t":0,"s":"t.0","d":"cut sh');

    const { bus, records } = open(path);
    expect(records.filter((r) => r.msg === "turn queue journal line skipped")).toEqual([
      expect.objectContaining({ reason: "journal_torn_line", line: 2, path, level: 40 }),
    ]);
    expect(persist(bus, "t.0", "after")).toEqual({ seq: 2, duplicate: false });
    const again = open(path);
    expect(again.records.filter((r) => r.msg === "turn queue journal line skipped")).toEqual([]);
    expect(consume(again.bus, "t.0").map((m) => m.data)).toEqual(["whole", "after"]);
  });

  it("skips a corrupt line anywhere else with a warning naming its number, and reads the rest", () => {
    const path = journalPath();
    const first = open(path).bus;
    persist(first, "t.0", "one");
    appendFileSync(path, "not json at all\n");
    appendFileSync(path, '{"q":"two","s":7}\n'); // JSON, but no record
    persist(first, "t.0", "three");

    const { bus, records } = open(path);
    expect(records.filter((r) => r.msg === "turn queue journal line skipped").map((r) => [r.reason, r.line])).toEqual([
      ["journal_corrupt_line", 2],
      ["journal_corrupt_line", 3],
    ]);
    expect(consume(bus, "t.0").map((m) => m.data)).toEqual(["one", "three"]);
  });

  it("counts corrupt lines past the first 20 in one line", () => {
    const path = journalPath();
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "garbage\n".repeat(25));
    const { records } = open(path);
    const skipped = records.filter((r) => r.msg === "turn queue journal line skipped");
    expect(skipped).toHaveLength(21);
    expect(skipped.at(-1)).toMatchObject({ reason: "journal_corrupt_line", more: 5 });
  });

  it("refuses a journal of another format version with one clear error, and leaves it as it was", () => {
    const path = journalPath();
    mkdirSync(join(path, ".."), { recursive: true });
    const content = '{"journal":"turnstream turn queue","v":2,"seq":9}\n{"q":9,"t":0,"s":"t.0","d":1}\n';
    writeFileSync(path, content);
    let refused: unknown;
    try {
      open(path);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(JournalOpenError);
    expect((refused as Error).message).toBe(
      `${path} was written by another turnstream version (journal format 2, this one reads 1); run that version until its queue is empty, or move the file away to start with an empty queue`,
    );
    expect(readFileSync(path, "utf8")).toBe(content);
  });

  it("rewrites itself while running once acked lines dominate, keeping every unacked message", () => {
    const path = journalPath();
    const { bus } = open(path);
    const got = consume(bus, "t.0");
    persist(bus, "t.0", "kept");
    for (let i = 0; i < 12_000; i++) {
      persist(bus, "t.0", i);
      got.at(-1)!.ack();
    }
    persist(bus, "t.0", "last");
    // 24,002 lines written; rewritten each time past 10,000, keeping the one still held.
    expect(lines(path).length).toBeLessThan(10_010);
    const { bus: reopened } = open(path);
    expect(consume(reopened, "t.0").map((m) => m.data)).toEqual(["kept", "last"]);
  });

  it("keeps in a rewrite the msgIds of the newest 10,000 acked messages inside the window, so a high rate does not copy the whole window each time", async () => {
    const path = journalPath();
    const { bus } = open(path);
    const got = consume(bus, "t.1");
    for (let i = 0; i < 16_000; i++) {
      persist(bus, "t.1", i, { msgId: `id-${i}` });
      got.at(-1)!.ack();
    }
    await jobEnds();
    const { bus: reopened } = open(path);
    expect(persist(reopened, "t.1", "again", { msgId: "id-15999" }).duplicate).toBe(true);
    expect(persist(reopened, "t.1", "again", { msgId: "id-6000" }).duplicate).toBe(true);
    expect(persist(reopened, "t.1", "again", { msgId: "id-100" }).duplicate).toBe(false);
  });

  it("refuses an append it cannot write, so the caller retries it and the retry is no duplicate", () => {
    const path = journalPath();
    const { bus } = open(path); // nothing written yet: a fresh journal is created by the first append
    writeFileSync(join(path, ".."), "a file where the journal's directory should be");
    expect(() => persist(bus, "t.0", "x", { msgId: "m1" })).toThrow(JournalWriteError);
    expect(() => persist(bus, "t.0", "x", { msgId: "m1" })).toThrow(JournalWriteError);
    expect(consume(bus, "t.0")).toEqual([]);
  });

  it("writes acks before the event loop turns: one not yet written when the process dies comes back", async () => {
    const path = journalPath();
    const first = open(path).bus;
    persist(first, "t.0", "a");
    persist(first, "t.0", "b");
    const [a, b] = consume(first, "t.0");
    a!.ack();
    await jobEnds();
    b!.ack(); // the process dies within this job
    expect(consume(open(path).bus, "t.0").map((m) => m.data)).toEqual(["b"]);
  });

  it("creates its file readable by its owner only, and keeps it so through a rewrite: it holds what users wrote", async () => {
    const path = journalPath();
    const { bus } = open(path);
    persist(bus, "t.0", { text: "a private message" });
    expect(statSync(path).mode & 0o077).toBe(0);
    open(path); // rewritten at start-up
    expect(statSync(path).mode & 0o077).toBe(0);
  });

  it("without a journal option it writes nothing (tests and operators construct it so)", () => {
    const path = journalPath();
    const bus = new MemoryBus();
    bus.persistNow("t.0", "x");
    expect(() => readFileSync(path)).toThrow();
  });
});
