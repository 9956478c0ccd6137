import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { BenchResults } from "../../bench/report/benchResults.js";
import { BEGIN_MARKER, END_MARKER, renderResults, replaceResults } from "../../bench/report/renderResults.js";
import { targetRows } from "../../bench/report/targets.js";

const committed = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as BenchResults;

describe("the benchmark report", () => {
  it("judges each target against its measured value, and reports what has none", () => {
    const rows = targetRows(committed);
    const byMeasure = new Map(rows.map((row) => [row.measure, row]));
    const embedded = committed.benchmarks["ingress-embedded"]?.result as { turnstream: { eventsPerSecond: number } } | undefined;
    expect(byMeasure.get("Ingress, embedded bus")?.status).toBe((embedded?.turnstream.eventsPerSecond ?? 0) >= 50_000 ? "met" : "missed");
    expect(byMeasure.get("Ingress, naive baseline (same machine, same run)")?.status).toBe("report");
    for (const row of rows) expect(["met", "missed", "report", "not run"]).toContain(row.status);
  });

  it("says 'not run' for a benchmark missing from the results, never a number", () => {
    const rows = targetRows({ ...committed, benchmarks: {} });
    expect(rows.every((row) => row.status === "not run" && row.actual === "—")).toBe(true);
  });

  it("flips a target's status when the value crosses it", () => {
    const withRate = (eventsPerSecond: number): BenchResults => ({
      ...committed,
      benchmarks: { ...committed.benchmarks, "ingress-embedded": { ...committed.benchmarks["ingress-embedded"]!, result: { turnstream: { eventsPerSecond } } } },
    });
    const status = (results: BenchResults) => targetRows(results).find((row) => row.measure === "Ingress, embedded bus")?.status;
    expect(status(withRate(49_999))).toBe("missed");
    expect(status(withRate(50_000))).toBe("met");
  });

  it("keeps docs/benchmarks.md in step with bench/results.json: the generated section is what the results render to", () => {
    const doc = readFileSync(new URL("../../docs/benchmarks.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf(BEGIN_MARKER), doc.indexOf(END_MARKER) + END_MARKER.length);
    expect(section).toBe(renderResults(committed));
    expect(replaceResults(doc, renderResults(committed))).toBe(doc);
  });
});
