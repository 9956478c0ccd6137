import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concat, EMPTY, firstValueFrom, ignoreElements, lastValueFrom, of, Subject, take, throwError, toArray, type Observable } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent, AgentFile, AgentFileEvent, AgentFileOutcome, FileReadyEvent } from "../../../operators/delivery/agentEvent.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { MemoryBus } from "../../../src/bus/memoryBus.js";
import type { FileStore } from "../../../src/bus/files/fileStore.js";
import { FileStoreError } from "../../../src/bus/files/fileStore.js";
import { FILE_NOT_SENT_LOG } from "../../../src/turn/delivery/deliveryLogMessages.js";
import { FILES_PER_TURN, TurnFiles, type FileSettings } from "../../../src/turn/files/turnFiles.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs, type LogRecord } from "../../helpers/logCapture.js";

let base: string;
let work: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "turn-files-")));
  work = join(base, "work");
  await mkdir(work);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

interface Rig {
  readonly turnFiles: TurnFiles;
  readonly files: FileStore;
  readonly records: LogRecord[];
  readonly outcomes: AgentFileOutcome[];
  /** A `file` event whose `settle` records into `outcomes`. */
  file(file: AgentFile): AgentFileEvent;
  stored(): Promise<number>;
}

function rig(options: { settings?: Partial<FileSettings>; event?: GatewayEvent; files?: FileStore | null } = {}): Rig {
  const files = options.files === null ? undefined : (options.files ?? new MemoryBus().files);
  const { logger, records } = captureLogs("debug");
  const send = () => EMPTY;
  const context: TurnContext = { send, sendStatus: send, scheduler: new MemoryBus().scheduler, logger, messageLimit: () => 4096, ...(files === undefined ? {} : { files }) };
  const settings: FileSettings = { roots: { workingDir: work, allowed: [work] }, ...options.settings };
  const outcomes: AgentFileOutcome[] = [];
  return {
    turnFiles: new TurnFiles(options.event ?? gatewayEvent(), context, settings),
    files: files as FileStore,
    records,
    outcomes,
    file: (file) => ({ type: "file", file, settle: (outcome) => outcomes.push(outcome) }),
    stored: () => firstValueFrom((files as FileStore).count()),
  };
}

const text = (value: string): AgentEvent => ({ type: "text", text: value });
const end: AgentEvent = { type: "end", stopReason: "end_turn" };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const png = (name = "chart.png"): AgentFile => ({ name, mimeType: "image/png", source: { kind: "base64", data: PNG.toString("base64") } });
const all = (r: Rig, events: Observable<AgentEvent>): Promise<AgentEvent[]> => lastValueFrom(events.pipe(r.turnFiles.resolve(), toArray()));
const shape = (events: readonly AgentEvent[]): string[] =>
  events.map((event) => (event.type === "text" ? `text:${event.text}` : event.type === "file_ready" ? `file_ready:${event.filename}:${event.ready.kind}` : event.type));

describe("TurnFiles.resolve", () => {
  it("turns each file into file_ready at its place, every other event in order around it", async () => {
    const r = rig();
    await writeFile(join(work, "report.pdf"), "%PDF-1.7");
    const events = await all(r, of(text("a"), r.file(png()), text("b"), r.file({ source: { kind: "path", path: "report.pdf" } }), text("c"), end));
    expect(shape(events)).toStrictEqual(["text:a", "file_ready:chart.png:stored", "text:b", "file_ready:report.pdf:stored", "text:c", "end"]);
  });

  it("stores the bytes under the ref it names, typed, with its caption and size", async () => {
    const r = rig();
    await writeFile(join(work, "report.pdf"), "%PDF-1.7");
    const [image, pdf] = (await all(r, of(r.file({ ...png(), caption: "the chart" }), r.file({ source: { kind: "path", path: "report.pdf" } })))) as FileReadyEvent[];
    expect(image).toMatchObject({ type: "file_ready", filename: "chart.png", size: PNG.length, caption: "the chart", ready: { kind: "stored", mimeType: "image/png", image: true } });
    expect(pdf).toMatchObject({ filename: "report.pdf", size: 8, caption: "", ready: { kind: "stored", mimeType: "application/pdf", image: false } });
    const refs = [image, pdf].map((event) => (event?.ready.kind === "stored" ? event.ready.ref : ""));
    expect(new Set(refs).size).toBe(2);
    expect(Buffer.from(await firstValueFrom(r.files.get(refs[0] ?? "")))).toStrictEqual(PNG);
    expect(Buffer.from(await firstValueFrom(r.files.get(refs[1] ?? ""))).toString()).toBe("%PDF-1.7");
    expect(await r.stored()).toBe(2);
  });

  it("holds the events after a file until it is read, passes events at once while no file is read", async () => {
    const r = rig();
    await writeFile(join(work, "big.bin"), Buffer.alloc(256 * 1024, 7));
    const source = new Subject<AgentEvent>();
    const seen: AgentEvent[] = [];
    let completed = false;
    source.pipe(r.turnFiles.resolve()).subscribe({ next: (event) => seen.push(event), complete: () => (completed = true) });
    source.next(text("a"));
    expect(shape(seen)).toStrictEqual(["text:a"]);
    source.next(r.file({ source: { kind: "path", path: "big.bin" } }));
    source.next(text("b"));
    source.next(r.file(png()));
    source.next(text("c"));
    source.next(end);
    source.complete();
    expect(shape(seen)).toStrictEqual(["text:a"]);
    expect(completed).toBe(false);
    await vi.waitFor(() => expect(completed).toBe(true));
    expect(shape(seen)).toStrictEqual(["text:a", "file_ready:big.bin:stored", "text:b", "file_ready:chart.png:stored", "text:c", "end"]);
    // Once the files are through, events pass at once again.
    const again = new Subject<AgentEvent>();
    const later: AgentEvent[] = [];
    again.pipe(r.turnFiles.resolve()).subscribe((event) => later.push(event));
    again.next(text("now"));
    expect(shape(later)).toStrictEqual(["text:now"]);
  });

  it("settles each send_file call: accepted with its name and size", async () => {
    const r = rig();
    await all(r, of(r.file(png("a.png")), r.file({ name: "notes.txt", source: { kind: "text", text: "héllo" } })));
    expect(r.outcomes).toStrictEqual([
      { kind: "accepted", filename: "a.png", size: PNG.length },
      { kind: "accepted", filename: "notes.txt", size: 6 },
    ]);
  });

  it("a path that may not be read: no event, not_found for the tool, the finer reason logged", async () => {
    const r = rig();
    const events = await all(r, of(text("a"), r.file({ source: { kind: "path", path: "../../etc/passwd" } }), r.file({ source: { kind: "path", path: "missing.pdf" } }), text("b")));
    expect(shape(events)).toStrictEqual(["text:a", "text:b"]);
    expect(r.outcomes).toStrictEqual([
      { kind: "refused", reason: "not_found" },
      { kind: "refused", reason: "not_found" },
    ]);
    const logged = r.records.filter((record) => record.msg === FILE_NOT_SENT_LOG);
    expect(logged.map(({ level, reason, platform }) => ({ level, reason, platform }))).toStrictEqual([
      { level: 40, reason: "outside", platform: "telegram" },
      { level: 40, reason: "unreadable", platform: "telegram" },
    ]);
    expect(JSON.stringify(logged)).not.toContain("passwd");
    expect(await r.stored()).toBe(0);
  });

  it("invalid base64: no event, invalid for the tool", async () => {
    const r = rig();
    expect(await all(r, of(r.file({ name: "x.png", source: { kind: "base64", data: "not base64!" } })))).toStrictEqual([]);
    expect(r.outcomes).toStrictEqual([{ kind: "refused", reason: "invalid" }]);
    expect(r.records.find((record) => record.msg === FILE_NOT_SENT_LOG)).toMatchObject({ reason: "invalid" });
  });

  it("a file too big: a refused file_ready with its name and size (the chat's notice), the limit for the tool", async () => {
    const r = rig({ settings: { maxFileBytes: 4 } });
    await writeFile(join(work, "data.csv"), "1,2,3\n");
    const events = await all(r, of(r.file({ source: { kind: "path", path: "data.csv" } }), r.file(png())));
    expect(events).toStrictEqual([
      { type: "file_ready", filename: "data.csv", size: 6, caption: "", ready: { kind: "refused", reason: "too_big" } },
      { type: "file_ready", filename: "chart.png", size: PNG.length, caption: "", ready: { kind: "refused", reason: "too_big" } },
    ]);
    expect(r.outcomes).toStrictEqual([
      { kind: "refused", reason: "too_big", maxBytes: 4 },
      { kind: "refused", reason: "too_big", maxBytes: 4 },
    ]);
    expect(r.records.filter((record) => record.msg === FILE_NOT_SENT_LOG).map(({ reason, size }) => ({ reason, size }))).toStrictEqual([
      { reason: "too_big", size: 6 },
      { reason: "too_big", size: PNG.length },
    ]);
    expect(await r.stored()).toBe(0);
  });

  it("takes the platform's own limit when none is configured (Discord: 10 MiB)", async () => {
    const r = rig({ event: gatewayEvent({ platform: "discord" }) });
    // 3 495 254 groups of 4 characters: 10 MiB and 2 bytes, measured from the length alone.
    const data = "AAAA".repeat(3_495_254);
    const [ready] = await all(r, of(r.file({ name: "big.bin", source: { kind: "base64", data } })));
    expect(ready).toMatchObject({ type: "file_ready", size: 10 * 1024 * 1024 + 2, ready: { kind: "refused", reason: "too_big" } });
    expect(r.outcomes).toStrictEqual([{ kind: "refused", reason: "too_big", maxBytes: 10 * 1024 * 1024 }]);
  });

  it(`refuses files past ${FILES_PER_TURN} in a turn as too_many, refused ones counted`, async () => {
    const r = rig();
    const files = [r.file({ source: { kind: "path", path: "missing" } }), ...Array.from({ length: FILES_PER_TURN }, (_, i) => r.file(png(`f${i}.png`)))];
    const events = await all(r, of(...files));
    expect(events).toHaveLength(FILES_PER_TURN - 1);
    expect(r.outcomes.at(-1)).toStrictEqual({ kind: "refused", reason: "too_many" });
    expect(r.outcomes.filter((outcome) => outcome.kind === "accepted")).toHaveLength(FILES_PER_TURN - 1);
    expect(r.records.filter((record) => record.msg === FILE_NOT_SENT_LOG).at(-1)).toMatchObject({ reason: "too_many" });
    expect(await r.stored()).toBe(FILES_PER_TURN - 1);
  });

  it("without a file store: a refused file_ready (store_failed), logged as an error", async () => {
    const r = rig({ files: null });
    const events = await all(r, of(r.file(png())));
    expect(events).toStrictEqual([{ type: "file_ready", filename: "chart.png", size: PNG.length, caption: "", ready: { kind: "refused", reason: "store_failed" } }]);
    expect(r.outcomes).toStrictEqual([{ kind: "refused", reason: "store_failed" }]);
    expect(r.records.find((record) => record.msg === FILE_NOT_SENT_LOG)).toMatchObject({ level: 50, reason: "store_failed" });
  });

  it("a store that fails: store_failed, and the turn goes on", async () => {
    const failing: FileStore = { ...new MemoryBus().files, put: () => throwError(() => new FileStoreError("bucket gone")), count: () => of(0), get: () => EMPTY, delete: () => EMPTY };
    const r = rig({ files: failing });
    const events = await all(r, of(r.file(png()), text("after")));
    expect(shape(events)).toStrictEqual(["file_ready:chart.png:refused", "text:after"]);
    expect(r.outcomes).toStrictEqual([{ kind: "refused", reason: "store_failed" }]);
  });

  it("delivers the source's error after the events waiting behind a file", async () => {
    const r = rig();
    const boom = new Error("agent died");
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      concat(of(text("a"), r.file(png()), text("b")), throwError(() => boom))
        .pipe(r.turnFiles.resolve())
        .subscribe({
          next: (event) => seen.push(shape([event])[0] ?? ""),
          error: (err: unknown) => {
            seen.push(`error:${(err as Error).message}`);
            resolve();
          },
        });
    });
    expect(seen).toStrictEqual(["text:a", "file_ready:chart.png:stored", "text:b", "error:agent died"]);
  });

  it("passes an error at once when no file is being read", async () => {
    const r = rig();
    await expect(all(r, concat(of(text("a")), throwError(() => new Error("x"))))).rejects.toThrow("x");
  });

  it("emits nothing more once unsubscribed while a file is read", async () => {
    const r = rig();
    const source = new Subject<AgentEvent>();
    const seen: AgentEvent[] = [];
    const subscription = source.pipe(r.turnFiles.resolve()).subscribe((event) => seen.push(event));
    source.next(r.file(png()));
    source.next(text("b"));
    subscription.unsubscribe();
    await vi.waitFor(() => expect(r.outcomes).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toStrictEqual([]);
    expect(source.observed).toBe(false);
  });
});

describe("TurnFiles.cleanup", () => {
  it("removes everything the turn stored", async () => {
    const r = rig();
    await writeFile(join(work, "report.pdf"), "%PDF");
    await all(r, of(r.file(png("a.png")), r.file(png("b.png")), r.file({ source: { kind: "path", path: "report.pdf" } })));
    expect(await r.stored()).toBe(3);
    await lastValueFrom(r.turnFiles.cleanup(), { defaultValue: undefined });
    expect(await r.stored()).toBe(0);
  });

  it("leaves files other turns stored", async () => {
    const bus = new MemoryBus();
    const mine = rig({ files: bus.files });
    const theirs = rig({ files: bus.files });
    await all(mine, of(mine.file(png())));
    await all(theirs, of(theirs.file(png())));
    await lastValueFrom(mine.turnFiles.cleanup(), { defaultValue: undefined });
    expect(await mine.stored()).toBe(1);
  });

  it("is cold, and completes with nothing stored or no store", async () => {
    const r = rig();
    await all(r, of(r.file(png())));
    const cleanup = r.turnFiles.cleanup();
    expect(await r.stored()).toBe(1);
    await lastValueFrom(cleanup, { defaultValue: undefined });
    expect(await r.stored()).toBe(0);
    await expect(lastValueFrom(r.turnFiles.cleanup(), { defaultValue: "done" })).resolves.toBe("done");
    await expect(lastValueFrom(rig({ files: null }).turnFiles.cleanup(), { defaultValue: "done" })).resolves.toBe("done");
  });

  it("removes at once a file whose read finished after the turn was cleaned up", async () => {
    // A store whose put finishes only when the test says: the turn is over (a cancelled turn) first.
    const inner = new MemoryBus().files;
    const release = new Subject<void>();
    const gated: FileStore = {
      put: (name, data) => concat(release.pipe(take(1), ignoreElements()), inner.put(name, data)),
      get: (name) => inner.get(name),
      delete: (name) => inner.delete(name),
      count: () => inner.count(),
    };
    const deleted = vi.spyOn(gated, "delete");
    const r = rig({ files: gated });
    const source = new Subject<AgentEvent>();
    const seen: AgentEvent[] = [];
    const subscription = source.pipe(r.turnFiles.resolve()).subscribe((event) => seen.push(event));
    source.next(r.file(png()));
    await vi.waitFor(() => expect(release.observed).toBe(true));
    subscription.unsubscribe();
    await lastValueFrom(r.turnFiles.cleanup(), { defaultValue: undefined });
    expect(deleted).not.toHaveBeenCalled();
    release.next();
    await vi.waitFor(() => expect(deleted).toHaveBeenCalledTimes(1));
    expect(await r.stored()).toBe(0);
    expect(seen).toStrictEqual([]);
  });
});

describe("TurnFiles when the turn ends first", () => {
  it("answers every send_file call still waiting, and one being read, `turn_ended`: none is left to hang", async () => {
    const r = rig();
    const source = new Subject<AgentEvent>();
    const seen: AgentEvent[] = [];
    const subscription = source.pipe(r.turnFiles.resolve()).subscribe((event) => seen.push(event));
    source.next(r.file(png("first.png")));
    source.next(r.file(png("second.png")));
    source.next(r.file(png("third.png")));
    // Cancelled while the first is being read and two wait behind it.
    subscription.unsubscribe();
    await lastValueFrom(r.turnFiles.cleanup(), { defaultValue: undefined });
    await vi.waitFor(() => expect(r.outcomes).toHaveLength(3));
    expect(r.outcomes).toStrictEqual([
      { kind: "refused", reason: "turn_ended" },
      { kind: "refused", reason: "turn_ended" },
      { kind: "refused", reason: "turn_ended" },
    ]);
    expect(seen).toStrictEqual([]);
    await vi.waitFor(async () => expect(await r.stored()).toBe(0));
  });
});
