import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { BenchResults } from "../../bench/report/benchResults.js";
import { renderResults } from "../../bench/report/renderResults.js";
import { RATIO_TARGETS, targetRows } from "../../bench/report/targets.js";

const committed = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as BenchResults;

/** The committed results with the embedded ingress result replaced. */
function withIngress(result: Record<string, unknown>, nodeOptions?: string): BenchResults {
  const record = { ranAt: "2026-12-01T10:00:00.000Z", seconds: 60, loadAverage: { before: 0.5, after: 0.9 }, ...(nodeOptions === undefined ? {} : { nodeOptions }), result };
  return { ...committed, benchmarks: { ...committed.benchmarks, "ingress-embedded": record } };
}

describe("the embedded ingress rows (issue 18)", () => {
  const row = (results: BenchResults, prefix: string) => targetRows(results).find((r) => r.measure.startsWith(prefix));

  it("judges Observables per event against ≤ 3, with the subscriptions beside it", () => {
    expect(row(withIngress({ observablesPerEvent: 3, subscriptionsPerEvent: 4 }), "Observables created per event")).toMatchObject({ status: "met", actual: "3.00 (4.00 subscriptions)" });
    expect(row(withIngress({ observablesPerEvent: 3.01, subscriptionsPerEvent: 4 }), "Observables created per event")?.status).toBe("missed");
  });

  it("judges turnstream's share of the raw ceiling against its ratio target, reports the baseline's, and the absolute rate without a target", () => {
    const results = (turnstreamToCeiling: number) =>
      withIngress({ turnstream: { eventsPerSecond: 20_000 }, turnstreamToCeiling, baselineToCeiling: 0.6, rawCeiling: { eventsPerSecond: 150_000, runs: [150_000] } });
    expect(row(results(0.5), "Ingress, turnstream ÷ raw ceiling")).toMatchObject({ status: "met", target: "≥ 0.33×", actual: "0.50× (ceiling 150,000 events/s)" });
    expect(row(results(RATIO_TARGETS.embeddedToCeiling), "Ingress, turnstream ÷ raw ceiling")?.status).toBe("met");
    expect(row(results(0.32), "Ingress, turnstream ÷ raw ceiling")?.status).toBe("missed");
    expect(row(results(0.5), "Ingress, baseline ÷ raw ceiling")).toMatchObject({ status: "report", actual: "0.60×" });
    // Under the old 50,000 events/s, and still only information: the ratio carries the target.
    expect(row(results(0.5), "Ingress, embedded bus")).toMatchObject({ status: "report", target: "—", actual: "20,000 events/s" });
  });

  it("reports the journaled turn queue's cost as each run over the in-memory one, with its rate and runs in the details", () => {
    const results = withIngress({ journalRatio: 0.52, journalRatioRuns: [0.5, 0.52, 0.6], turnstreamJournal: { eventsPerSecond: 21_000, runs: [20_000, 21_000, 24_000], cpuMicrosPerEvent: 30.5 } });
    expect(row(results, "Ingress with the turn queue journaled")).toMatchObject({ status: "report", actual: "0.52× (journaled 21,000 events/s)" });
    expect(renderResults(results)).toContain("With the turn queue journaled (`[pool] state_dir`): 20,000, 21,000, 24,000 events/s, 30.5 µs CPU per event; each run over the in-memory run of its round: 0.500, 0.520, 0.600 (median 0.520).");
  });

  it("lists the Node flags each result was measured with, and says when a record has none", () => {
    const rendered = renderResults(withIngress({ benchmark: "ingress-embedded" }, "--max-semi-space-size=64"));
    // Benchmarks run with the same flags share one entry (`a, b: flags`), whatever the committed results hold.
    expect(rendered).toMatch(/Node flags[^\n]*ingress-embedded[^|`]*: `--max-semi-space-size=64`/);
    expect(renderResults(withIngress({ benchmark: "ingress-embedded" }, ""))).toMatch(/ingress-embedded: Node's defaults/);
    expect(renderResults(withIngress({ benchmark: "ingress-embedded" }))).toMatch(/ingress-embedded[^|]*: not recorded/);
  });
});
