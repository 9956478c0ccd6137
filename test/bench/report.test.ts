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

  it("judges the soak: heap slope over the last third and events lost, and renders one row per heap sample", () => {
    const soak = (lastThirdKiBPerMin: number, lost: number): BenchResults => ({
      ...committed,
      benchmarks: {
        ...committed.benchmarks,
        soak: {
          ranAt: "2026-12-01T10:00:00.000Z",
          seconds: 330,
          loadAverage: { before: 0.5, after: 0.9 },
          result: {
            benchmark: "soak",
            seconds: 20,
            ratePerSecond: 50,
            conversations: 100,
            events: { sent: 1_000, answered: 1_000 - lost, lost, duplicates: 0, unmatched: 0, sentPerSecond: 50 },
            latencyMs: { samples: 1_000, p50: 4, p90: 6, p99: 9, max: 12 },
            plateau: { secondHalfKiBPerMin: 900, secondHalfFromSecs: 10, secondHalfBytesPerEvent: 1, lastThirdKiBPerMin, lastThirdFromSecs: 14, settledAtSecs: 10, growthAfterSettledMiB: 0.1 },
            samples: [0, 10, 20].map((t) => ({ t, heapMiB: 20 + t / 100, rssMiB: 120, sent: t * 50, answered: t * 50 })),
          },
        },
      },
    });
    const status = (results: BenchResults, prefix: string) => targetRows(results).find((row) => row.measure.startsWith(prefix))?.status;
    expect(status(soak(256, 0), "Soak: heap growth")).toBe("met");
    expect(status(soak(257, 0), "Soak: heap growth")).toBe("missed");
    expect(status(soak(0, 0), "Soak: events sent and not answered")).toBe("met");
    expect(status(soak(0, 1), "Soak: events sent and not answered")).toBe("missed");
    const rendered = renderResults(soak(12, 0));
    expect(rendered).toContain("### Soak (50 events/s over 100 conversations");
    expect(rendered).toContain("| 20 | 20.20 | 120.0 | 1,000 | 1,000 |");
  });

  it("keeps docs/benchmarks.md in step with bench/results.json: the generated section is what the results render to", () => {
    const doc = readFileSync(new URL("../../docs/benchmarks.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf(BEGIN_MARKER), doc.indexOf(END_MARKER) + END_MARKER.length);
    expect(section).toBe(renderResults(committed));
    expect(replaceResults(doc, renderResults(committed))).toBe(doc);
  });
});
