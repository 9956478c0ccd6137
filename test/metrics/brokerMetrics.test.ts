import { describe, expect, it } from "vitest";
import { BrokerMetrics } from "../../src/metrics/brokerMetrics.js";
import { parseMetrics } from "../helpers/metricsText.js";

const options = { mode: "structured", partitions: 8, version: "9.9.9", processMetrics: false } as const;

async function scraped(metrics: BrokerMetrics) {
  return parseMetrics(await metrics.metrics());
}

const names = (samples: Map<string, number>) => new Set([...samples.keys()].map((key) => key.replace(/\{.*$/, "")));

describe("BrokerMetrics", () => {
  it("role all: every series at 0 from the start, the process metrics on request", async () => {
    const samples = await scraped(new BrokerMetrics({ role: "all", gateway: true, ...options }));
    expect(samples.get('turnstream_build_info{role="all",version="9.9.9"}')).toBe(1);
    expect(samples.get("turnstream_partitions")).toBe(8);
    expect(samples.get('turnstream_events_total{outcome="debounced"}')).toBe(0);
    expect(samples.get('turnstream_triage_decisions_total{decision="wake",reason="none"}')).toBe(0);
    expect(samples.get('turnstream_triage_decisions_total{decision="suppressed",reason="daily_cap"}')).toBe(0);
    expect(samples.get('turnstream_turns_total{mode="structured",outcome="agent_error"}')).toBe(0);
    expect(samples.get('turnstream_send_failures_total{reason="gateway_rejected"}')).toBe(0);
    expect(samples.get('turnstream_agent_exits_total{cause="signal"}')).toBe(0);
    expect(samples.get("turnstream_gateway_connected")).toBe(0);
    expect(samples.get("turnstream_partitions_owned")).toBe(0);
    expect(names(samples).has("process_cpu_seconds_total")).toBe(false);
    const withProcess = parseMetrics(await new BrokerMetrics({ role: "all", gateway: true, ...options, processMetrics: true }).metrics());
    expect(names(withProcess).has("process_cpu_seconds_total")).toBe(true);
    expect(names(withProcess).has("nodejs_eventloop_lag_seconds")).toBe(true);
  });

  it("an edge exposes its events and its gateway, no turn series; a worker the reverse", async () => {
    const edge = names(await scraped(new BrokerMetrics({ role: "edge", gateway: true, ...options })));
    expect(edge).toContain("turnstream_events_total");
    expect(edge).toContain("turnstream_gateway_connected");
    for (const name of ["turnstream_turns_total", "turnstream_sessions", "turnstream_partitions_owned", "turnstream_ack_latency_seconds_bucket"]) expect(edge).not.toContain(name);
    const worker = names(await scraped(new BrokerMetrics({ role: "worker", gateway: false, ...options })));
    expect(worker).toContain("turnstream_turns_total");
    expect(worker).toContain("turnstream_partitions_owned");
    expect(worker).not.toContain("turnstream_gateway_connected");
    // Role all without [gateway] holds no gateway connection: no gauge that would read "down" forever.
    const headless = names(await scraped(new BrokerMetrics({ role: "all", gateway: false, ...options })));
    expect(headless).not.toContain("turnstream_gateway_connected");
    expect(headless).toContain("turnstream_turns_total");
  });

  it("counts what it is told, with bounded labels", async () => {
    const metrics = new BrokerMetrics({ role: "all", gateway: true, ...options });
    metrics.events("turn", 2);
    metrics.events("suppressed");
    metrics.triageDecision("suppressed", "cooldown");
    metrics.turnSettled("completed", 1.5);
    metrics.turnSettled("failed", 0.2);
    metrics.firstMessage(0.4);
    metrics.messageSent("message", 0.003);
    metrics.messageSent("reaction", 0.001);
    metrics.sendFailed("timeout");
    metrics.sendFailed("telegram said no: chat 123 is gone"); // a gateway's own code never becomes a label
    metrics.sendRetried();
    metrics.bubbleGap(0.41);
    metrics.agentExited("failed");
    metrics.turnRecovered();
    metrics.queued(3);
    metrics.queued(-1);
    metrics.read({ sessions: () => 5, agentProcesses: () => 3, waitingForSession: () => 2, gatewayConnected: () => true, partitionsOwned: () => 8 });
    const samples = await scraped(metrics);
    expect(samples.get('turnstream_events_total{outcome="turn"}')).toBe(2);
    expect(samples.get('turnstream_events_total{outcome="suppressed"}')).toBe(1);
    expect(samples.get('turnstream_triage_decisions_total{decision="suppressed",reason="cooldown"}')).toBe(1);
    expect(samples.get('turnstream_turns_total{mode="structured",outcome="completed"}')).toBe(1);
    expect(samples.get('turnstream_turns_total{mode="structured",outcome="failed"}')).toBe(1);
    expect(samples.get('turnstream_turn_duration_seconds_count{mode="structured"}')).toBe(2);
    expect(samples.get('turnstream_turn_duration_seconds_sum{mode="structured"}')).toBe(1.7);
    expect(samples.get('turnstream_turn_duration_seconds_bucket{le="0.25",mode="structured"}')).toBe(1);
    expect(samples.get("turnstream_first_message_seconds_count")).toBe(1);
    expect(samples.get('turnstream_messages_sent_total{kind="message"}')).toBe(1);
    expect(samples.get('turnstream_messages_sent_total{kind="reaction"}')).toBe(1);
    // The reaction is not awaited: only the message's ack is timed.
    expect(samples.get("turnstream_ack_latency_seconds_count")).toBe(1);
    expect(samples.get('turnstream_ack_latency_seconds_bucket{le="0.001"}')).toBe(0);
    expect(samples.get('turnstream_ack_latency_seconds_bucket{le="0.005"}')).toBe(1);
    expect(samples.get('turnstream_send_failures_total{reason="timeout"}')).toBe(1);
    expect(samples.get('turnstream_send_failures_total{reason="gateway_rejected"}')).toBe(1);
    expect(samples.get("turnstream_send_retries_total")).toBe(1);
    expect(samples.get('turnstream_bubble_gap_seconds_bucket{le="0.4"}')).toBe(0);
    expect(samples.get('turnstream_bubble_gap_seconds_bucket{le="0.5"}')).toBe(1);
    expect(samples.get('turnstream_agent_exits_total{cause="failed"}')).toBe(1);
    expect(samples.get("turnstream_recovered_turns_total")).toBe(1);
    expect(samples.get("turnstream_queued_events")).toBe(2);
    expect(samples.get("turnstream_sessions")).toBe(5);
    expect(samples.get("turnstream_agent_processes")).toBe(3);
    expect(samples.get("turnstream_session_waits")).toBe(2);
    expect(samples.get("turnstream_gateway_connected")).toBe(1);
    expect(samples.get("turnstream_partitions_owned")).toBe(8);
    // The series set is closed: nothing above added one.
    const before = (await scraped(new BrokerMetrics({ role: "all", gateway: true, ...options }))).size;
    expect(samples.size).toBe(before);
  });

  it("two brokers in one process keep their own figures", async () => {
    const a = new BrokerMetrics({ role: "all", gateway: true, ...options });
    const b = new BrokerMetrics({ role: "all", gateway: true, ...options });
    a.events("turn");
    expect((await scraped(a)).get('turnstream_events_total{outcome="turn"}')).toBe(1);
    expect((await scraped(b)).get('turnstream_events_total{outcome="turn"}')).toBe(0);
  });
});
