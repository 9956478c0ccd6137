import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { CounterSeries, HistogramSeries } from "../../src/metrics/series.js";
import { parseMetrics } from "../helpers/metricsText.js";

describe("CounterSeries and HistogramSeries on a prom-client registry", () => {
  it("a counter family exposes every label set from the start, and counts by key", async () => {
    const registry = new Registry();
    const counter = new CounterSeries("demo_events_total", "Demo events.", ["a", "b"] as const, (outcome) => ({ outcome }), registry);
    expect(await registry.metrics()).toBe('# HELP demo_events_total Demo events.\n# TYPE demo_events_total counter\ndemo_events_total{outcome="a"} 0\ndemo_events_total{outcome="b"} 0\n');
    counter.inc("a");
    counter.inc("b", 3);
    counter.inc("a", 0.5);
    counter.inc("c" as "a"); // a key it was not built with is ignored, never a new series
    const samples = parseMetrics(await registry.metrics());
    expect([...samples]).toEqual([
      ['demo_events_total{outcome="a"}', 1.5],
      ['demo_events_total{outcome="b"}', 3],
    ]);
    expect(counter.value("b")).toBe(3);
  });

  it("a histogram exposes cumulative buckets (le includes its bound), +Inf, _sum and _count", async () => {
    const registry = new Registry();
    const histogram = new HistogramSeries("demo_seconds", "Demo.", [1, 0.1, 0.5], { mode: "text" }, registry);
    for (const value of [0.05, 0.1, 0.3, 0.5, 0.7, 2]) histogram.observe(value);
    const text = await registry.metrics();
    expect(text).toContain("# TYPE demo_seconds histogram");
    expect([...parseMetrics(text)]).toEqual([
      ['demo_seconds_bucket{le="0.1",mode="text"}', 2],
      ['demo_seconds_bucket{le="0.5",mode="text"}', 4],
      ['demo_seconds_bucket{le="1",mode="text"}', 5],
      ['demo_seconds_bucket{le="+Inf",mode="text"}', 6],
      ['demo_seconds_sum{mode="text"}', 3.65],
      ['demo_seconds_count{mode="text"}', 6],
    ]);
    expect(histogram.count).toBe(6);
  });

  it("is formatted exactly as prom-client's own Histogram would be", async () => {
    const { Histogram } = await import("prom-client");
    const ours = new Registry();
    const theirs = new Registry();
    const mine = new HistogramSeries("same_seconds", "Same.", [0.01, 0.1, 1], {}, ours);
    const reference = new Histogram({ name: "same_seconds", help: "Same.", buckets: [0.01, 0.1, 1], registers: [theirs] });
    for (const value of [0.001, 0.02, 0.02, 0.5, 9]) {
      mine.observe(value);
      reference.observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
