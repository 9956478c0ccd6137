import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { firstValueFrom, lastValueFrom } from "rxjs";
import { MemoryCronMarks, type CronMarks } from "../../src/state/cronMarks.js";
import { fileCronMarks } from "../../src/state/fileCronMarks.js";
import { KvCronMarks } from "../../src/state/kv/kvCronMarks.js";
import { captureLogs } from "../helpers/logCapture.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { natsKvFixture } from "./kv/natsKv.js";

// Where [cron] catch_up = "last" records the latest minute each job fired: in memory, in the
// embedded bus's state dir, in NATS KV (a real nats-server started by the fixture).

const fired = (marks: CronMarks, job: string, minute: number) => lastValueFrom(marks.fired(job, minute), { defaultValue: undefined });
const last = (marks: CronMarks, job: string) => firstValueFrom(marks.lastFired(job));

function describeContract(name: string, make: () => Promise<CronMarks>): void {
  describe(`${name}: the CronMarks contract`, () => {
    it("knows nothing of a job never fired, then the latest minute; a mark never moves back", async () => {
      const marks = await make();
      expect(await last(marks, "job-a")).toBeUndefined();
      await fired(marks, "job-a", 180_000);
      await fired(marks, "job-a", 60_000);
      expect(await last(marks, "job-a")).toBe(180_000);
      await fired(marks, "job-a", 240_000);
      expect(await last(marks, "job-a")).toBe(240_000);
      expect(await last(marks, "job-b")).toBeUndefined();
    });

    it("keeps jobs apart, whatever their keys hold", async () => {
      const marks = await make();
      await fired(marks, "id-a:b/c", 60_000);
      await fired(marks, "id-a.b", 120_000);
      expect([await last(marks, "id-a:b/c"), await last(marks, "id-a.b")]).toEqual([60_000, 120_000]);
    });
  });
}

describeContract("MemoryCronMarks", async () => new MemoryCronMarks());

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratchFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "cron-marks-"));
  dirs.push(dir);
  return join(dir, "cron-marks.json");
}

describeContract("fileCronMarks", async () => fileCronMarks(scratchFile(), captureLogs().logger));

describe("fileCronMarks", () => {
  it("outlives the process: a second reader of the file finds the marks", async () => {
    const path = scratchFile();
    await fired(fileCronMarks(path, captureLogs().logger), "job-a", 120_000);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ version: 1, marks: { "job-a": 120_000 } });
    expect(await last(fileCronMarks(path, captureLogs().logger), "job-a")).toBe(120_000);
  });

  it("a corrupt or foreign file is logged and read as no marks (nothing fires late), then written anew", async () => {
    const path = scratchFile();
    writeFileSync(path, '{"version": 7, "marks": {}}');
    const { logger, records } = captureLogs();
    const marks = fileCronMarks(path, logger);
    expect(await last(marks, "job-a")).toBeUndefined();
    expect(records.find((record) => record.msg === "cron marks not read; no firing is caught up")).toMatchObject({ reason: "parse_failed" });
    await fired(marks, "job-a", 60_000);
    expect(await last(fileCronMarks(path, logger), "job-a")).toBe(60_000);
  });

  it("a file that cannot be written is logged; the mark holds in memory", async () => {
    const { logger, records } = captureLogs();
    const marks = fileCronMarks(join(scratchFile(), "missing-dir", "cron-marks.json"), logger);
    await fired(marks, "job-a", 60_000);
    expect(await last(marks, "job-a")).toBe(60_000);
    expect(records.find((record) => record.msg === "cron marks not written")).toMatchObject({ reason: "write_failed" });
  });
});

describe.skipIf(!natsServerAvailable())("KvCronMarks", () => {
  const nats = natsKvFixture();
  describeContract("KvCronMarks", async () => new KvCronMarks((await nats.bucket()).kv));

  it("is shared: processes firing the same and older minutes leave the latest", async () => {
    const { name } = await nats.bucket();
    const [one, two] = await Promise.all([1, 2].map(async () => new KvCronMarks(await nats.open(await nats.connect(), name))));
    await Promise.all([fired(one!, "job-a", 120_000), fired(two!, "job-a", 120_000), fired(two!, "job-a", 60_000)]);
    expect(await last(one!, "job-a")).toBe(120_000);
    await fired(one!, "job-a", 180_000);
    expect(await last(two!, "job-a")).toBe(180_000);
  });
});
