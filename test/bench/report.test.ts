import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { BenchResults } from "../../bench/report/benchResults.js";
import { BEGIN_MARKER, END_MARKER, renderResults, replaceResults } from "../../bench/report/renderResults.js";
import { RATIO_TARGETS, targetRows } from "../../bench/report/targets.js";

const committed = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as BenchResults;

describe("the benchmark report", () => {
  it("judges each target against its measured value, and reports what has none", () => {
    const rows = targetRows(committed);
    const byMeasure = new Map(rows.map((row) => [row.measure, row]));
    const embedded = committed.benchmarks["ingress-embedded"]?.result as { turnstreamToCeiling: number } | undefined;
    expect(byMeasure.get("Ingress, turnstream ÷ raw ceiling (frames + JSON.parse + schema only)")?.status).toBe(
      (embedded?.turnstreamToCeiling ?? 0) >= RATIO_TARGETS.embeddedToCeiling ? "met" : "missed",
    );
    expect(byMeasure.get("Ingress, naive baseline (same machine, same run)")?.status).toBe("report");
    // Absolute rates and latencies are information; their ratios to the run's anchors carry the targets.
    for (const measure of ["Ingress, embedded bus", "Ingress through JetStream", "Worker drain, one worker (NATS)", "Bubble overhead p99, embedded", "Bubble overhead p99, NATS"]) {
      expect(byMeasure.get(measure)?.target).toBe("—");
      expect(["report", "not run"]).toContain(byMeasure.get(measure)?.status);
    }
    for (const row of rows) expect(["met", "missed", "report", "not run"]).toContain(row.status);
  });

  it("says 'not run' for a benchmark missing from the results, never a number", () => {
    const rows = targetRows({ ...committed, benchmarks: {} });
    expect(rows.every((row) => row.status === "not run" && row.actual === "—")).toBe(true);
  });

  it("flips a target's status when the value crosses it", () => {
    const withRatio = (turnstreamToCeiling: number): BenchResults => ({
      ...committed,
      benchmarks: { ...committed.benchmarks, "ingress-embedded": { ...committed.benchmarks["ingress-embedded"]!, result: { turnstreamToCeiling } } },
    });
    const status = (results: BenchResults) => targetRows(results).find((row) => row.measure.startsWith("Ingress, turnstream ÷ raw ceiling"))?.status;
    expect(status(withRatio(RATIO_TARGETS.embeddedToCeiling - 0.01))).toBe("missed");
    expect(status(withRatio(RATIO_TARGETS.embeddedToCeiling))).toBe("met");
  });

  describe("targets as ratios to an anchor of the same run (issue 43)", () => {
    const withResult = (benchmark: string, result: Record<string, unknown>): BenchResults => ({
      ...committed,
      benchmarks: { ...committed.benchmarks, [benchmark]: { ranAt: "2026-12-06T10:00:00.000Z", seconds: 60, loadAverage: { before: 0.5, after: 0.9 }, result } },
    });
    const row = (results: BenchResults, measure: string) => targetRows(results).find((r) => r.measure.startsWith(measure));

    it("judges JetStream ingress over nats-server's own pipelined appends, and keeps the rate as information", () => {
      const nats = (eventsPerSecond: number) => withResult("ingress-nats", { turnstream: { eventsPerSecond }, anchor: { pipelinedAppendsPerSecond: 50_000, passes: [49_000, 50_000, 52_000] } });
      const atTarget = RATIO_TARGETS.jetStreamToAppends * 50_000;
      expect(row(nats(atTarget), "Ingress through JetStream ÷")).toMatchObject({ status: "met", actual: `${(atTarget / 50_000).toFixed(2)}× (anchor 50,000 appends/s)` });
      expect(row(nats(atTarget - 1), "Ingress through JetStream ÷")?.status).toBe("missed");
      expect(row(nats(atTarget - 1), "Ingress through JetStream")).toMatchObject({ status: "report", target: "—" });
      expect(renderResults(nats(atTarget))).toContain("49,000, 50,000, 52,000 appends/s, median 50,000");
    });

    it("says 'not run' for a ratio whose anchor the result lacks (a run from before the anchors), never a number", () => {
      const old = withResult("ingress-nats", { turnstream: { eventsPerSecond: 9_000 } });
      expect(row(old, "Ingress through JetStream ÷")).toMatchObject({ status: "not run", actual: "—" });
      expect(row(old, "Ingress through JetStream")).toMatchObject({ status: "report", actual: "9,000 events/s" });
      const zero = withResult("ingress-nats", { turnstream: { eventsPerSecond: 9_000 }, anchor: { pipelinedAppendsPerSecond: 0 } });
      expect(row(zero, "Ingress through JetStream ÷")?.status).toBe("not run");
    });

    it("judges the one-worker drain over its own server's anchor, and shows every point's ratio in the scale table", () => {
      const point = (workers: number, drain: number, anchor: number) => ({ workers, endToEnd: { eventsPerSecond: drain / 2, runs: [] }, drain: { eventsPerSecond: drain, runs: [] }, anchor: { pipelinedAppendsPerSecond: anchor, passes: [anchor] } });
      const scale = (drain: number) => withResult("scale", { events: 3_000, runs: 3, points: [point(1, drain, 50_000), point(2, 12_000, 40_000), point(4, 9_000, 30_000)] });
      const atTarget = RATIO_TARGETS.drainToAppends * 50_000;
      expect(row(scale(atTarget), "Worker drain, one worker ÷")).toMatchObject({ status: "met", actual: `${(atTarget / 50_000).toFixed(2)}× (anchor 50,000 appends/s)` });
      expect(row(scale(atTarget - 1), "Worker drain, one worker ÷")?.status).toBe("missed");
      expect(row(scale(atTarget - 1), "Worker drain, one worker (NATS)")).toMatchObject({ status: "report", target: "—" });
      expect(renderResults(scale(atTarget))).toContain("| 2 | 6,000 | 12,000 | 40,000 | 0.30× |");
    });

    it("judges bubble overhead p99 over the bare ack round trip's p99 of the same run, on each bus", () => {
      const bubbles = (embeddedP99: number, natsP99: number) =>
        withResult("bubble-overhead", {
          embedded: { samples: 1_000, p50: 1, p90: 1.5, p99: embeddedP99, max: 9, ackRoundTrip: { samples: 1_000, p50: 0.4, p90: 0.6, p99: 1, max: 3 } },
          nats: { samples: 1_000, p50: 1.2, p90: 2, p99: natsP99, max: 30, ackRoundTrip: { samples: 1_000, p50: 0.5, p90: 0.7, p99: 2, max: 4 } },
        });
      const embeddedLimit = RATIO_TARGETS.bubbleEmbeddedToRoundTrip;
      const natsLimit = RATIO_TARGETS.bubbleNatsToRoundTrip * 2;
      const met = bubbles(embeddedLimit, natsLimit);
      expect(row(met, "Bubble overhead p99 ÷ bare ack round trip p99 (same run), embedded")).toMatchObject({ status: "met", actual: `${embeddedLimit.toFixed(2)}× (round trip p99 1.00 ms)` });
      expect(row(met, "Bubble overhead p99 ÷ bare ack round trip p99 (same run), NATS")?.status).toBe("met");
      const missed = bubbles(embeddedLimit + 0.01, natsLimit + 0.01);
      expect(row(missed, "Bubble overhead p99 ÷ bare ack round trip p99 (same run), embedded")?.status).toBe("missed");
      expect(row(missed, "Bubble overhead p99 ÷ bare ack round trip p99 (same run), NATS")?.status).toBe("missed");
      expect(row(missed, "Bubble overhead p99, embedded")).toMatchObject({ status: "report", target: "—" });
      expect(renderResults(met)).toMatch(/\| embedded \| 1,000 \|[^\n]*\| 0\.40 \| 1\.00 \|/);
    });
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
