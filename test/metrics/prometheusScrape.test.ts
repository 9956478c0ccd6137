import { afterAll, describe, expect, it } from "vitest";
import { prometheusAvailable, startPrometheus, type PrometheusServer } from "../helpers/prometheus.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// A real Prometheus server (Debian's package) scrapes a running broker's /metrics, and the
// counters come back through Prometheus' own HTTP API: the exposition is what Prometheus reads.

describe.skipIf(!prometheusAvailable())("a real Prometheus server scraping the broker", () => {
  let stack: Stack | undefined;
  let prometheus: PrometheusServer | undefined;

  afterAll(async () => {
    await prometheus?.stop();
    await stack?.stop();
  }, 30_000);

  it("reads turnstream's counters and histograms back through the query API", async () => {
    stack = await startStack({ config: { metrics: { enabled: true, listen: "127.0.0.1:0" } } });
    const s = stack;
    s.gateway.broadcast(userEvent("text"));
    s.gateway.broadcast(userEvent("text"));
    expect(await until(() => s.records.filter((r) => r.msg === "turn complete").length === 2, 20_000)).toBe(true);

    const target = new URL(s.broker.metricsUrl as string).host;
    prometheus = await startPrometheus({ targets: [target], scrapeIntervalMs: 500 });
    const turns = await prometheus.waitFor('turnstream_events_total{outcome="turn"}', (r) => r.length === 1 && r[0]?.value === 2, 30_000);
    expect(turns[0]?.metric).toMatchObject({ __name__: "turnstream_events_total", outcome: "turn", job: "turnstream", instance: target });

    const completed = await prometheus.query('sum by (mode) (turnstream_turns_total{outcome="completed"})');
    expect(completed).toEqual([{ metric: { mode: "text" }, value: 2 }]);
    // The histograms are real histograms to Prometheus: a quantile over their buckets is a number of seconds.
    const [p99] = await prometheus.query("histogram_quantile(0.99, sum by (le) (turnstream_ack_latency_seconds_bucket))");
    expect(p99?.value).toBeGreaterThan(0);
    expect(p99?.value).toBeLessThan(10);
    expect(await prometheus.query("turnstream_gateway_connected")).toEqual([expect.objectContaining({ value: 1 })]);
    expect((await prometheus.query("process_resident_memory_bytes"))[0]?.value).toBeGreaterThan(0);
    expect(await prometheus.targets()).toEqual([{ scrapeUrl: `http://${target}/metrics`, health: "up", lastError: "" }]);
  }, 60_000);
});
