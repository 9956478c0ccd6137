import { afterEach, describe, expect, it } from "vitest";
import { scrape, type Metrics } from "../helpers/metricsText.js";
import { startStack, stackBuses, until, userEvent, useStackBus, type Stack, type StackOptions } from "../helpers/stack.js";

// `/metrics` after real turns over a real dev gateway, the scripted ACP agent, on both buses: the
// counters and histograms each kind of turn must produce, checked against what the gateway saw.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function start(config: StackOptions["config"] = {}): Promise<Stack> {
  stack = await startStack({ config: { ...config, metrics: { enabled: true, listen: "127.0.0.1:0" } } });
  return stack;
}

function metricsUrl(s: Stack): string {
  const url = s.broker.metricsUrl;
  if (url === undefined) throw new Error("the broker serves no metrics");
  return url;
}

const settled = (s: Stack) => s.records.filter((r) => r.msg === "turn complete" || r.msg === "turn failed").length;

async function turnsSettled(s: Stack, count: number): Promise<void> {
  expect(await until(() => settled(s) >= count, 20_000)).toBe(true);
}

/** Scrapes until `ready` holds of the metrics (sends after a turn, the done reaction, may land just after it settles). */
async function scrapeUntil(s: Stack, ready: (m: Metrics) => boolean): Promise<Metrics> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const metrics = await scrape(metricsUrl(s));
    if (ready(metrics) || Date.now() > deadline) return metrics;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sent = (m: Metrics, kind: string) => m.value("turnstream_messages_sent_total", { kind });
const events = (m: Metrics, outcome: string) => m.value("turnstream_events_total", { outcome });
const reactionFrames = (s: Stack) => s.commands.filter((frame) => frame.command === "add_reaction" || frame.command === "remove_reaction").length;

describe.each(stackBuses())("/metrics after real turns (%s bus)", (bus) => {
  useStackBus(bus);

  it("text turns: completed, an agent error, a crashed agent; skipped, duplicate and invalid events; the gauges", async () => {
    const s = await start();
    const url = metricsUrl(s);
    const before = await scrape(url);
    // Every labelled series exists at 0 before anything happened.
    for (const outcome of ["turn", "answer", "skipped", "untrusted", "duplicate", "suppressed", "debounced", "dropped", "invalid"]) {
      expect(before.get("turnstream_events_total", { outcome })).toBe(0);
    }
    expect(before.get("turnstream_turns_total", { mode: "text", outcome: "completed" })).toBe(0);
    expect(before.get("turnstream_build_info", { role: "all", version: expect.any(String) as unknown as string })).toBeUndefined();
    expect([...before.samples.keys()].some((key) => key.startsWith('turnstream_build_info{role="all"'))).toBe(true);
    expect(before.get("process_cpu_seconds_total")).toBeGreaterThan(0);

    const text = userEvent("text");
    s.gateway.broadcast(text);
    s.gateway.broadcast(text); // the same event again: collapsed on the turn stream
    s.gateway.broadcast(userEvent("text", { sender: { id: "bot-9", name: "bot", display_name: "Bot", is_bot: true } }));
    s.gateway.broadcast("{not json");
    await turnsSettled(s, 1);
    const afterText = await scrapeUntil(s, (m) => sent(m, "message") >= 1);
    expect(afterText.get("turnstream_sessions")).toBe(1);
    expect(afterText.get("turnstream_agent_processes")).toBe(1);
    s.gateway.broadcast(userEvent("error"));
    await turnsSettled(s, 2);
    s.gateway.broadcast(userEvent("crash"));
    await turnsSettled(s, 3);

    const m = await scrapeUntil(
      s,
      (now) => sent(now, "message") === s.replies.length && sent(now, "reaction") === reactionFrames(s) && now.value("turnstream_agent_exits_total", { cause: "failed" }) === 1,
    );
    expect(events(m, "turn")).toBe(3);
    expect(events(m, "duplicate")).toBe(1);
    expect(events(m, "skipped")).toBe(1);
    expect(events(m, "invalid")).toBe(1);
    expect(events(m, "suppressed") + events(m, "untrusted") + events(m, "debounced") + events(m, "dropped")).toBe(0);
    // The agent's error and its crash are shown to the user (⚠️) and the turn completes, as upstream: counted apart.
    expect(m.get("turnstream_turns_total", { mode: "text", outcome: "completed" })).toBe(1);
    expect(m.get("turnstream_turns_total", { mode: "text", outcome: "agent_error" })).toBe(2);
    expect(m.get("turnstream_turns_total", { mode: "text", outcome: "failed" })).toBe(0);
    expect(m.get("turnstream_turn_duration_seconds_count", { mode: "text" })).toBe(3);
    expect(m.value("turnstream_turn_duration_seconds_sum", { mode: "text" })).toBeGreaterThan(0);
    // One reply per turn (the answer, or the ⚠️ notice of a failed one); every send acked is counted by kind.
    expect(s.replies).toHaveLength(3);
    expect(sent(m, "message")).toBe(3);
    expect(sent(m, "reaction")).toBe(reactionFrames(s));
    expect(sent(m, "reaction")).toBeGreaterThan(0);
    expect(m.get("turnstream_first_message_seconds_count")).toBe(3);
    // Every send but a reaction (written without waiting) is timed to its ack.
    expect(m.get("turnstream_ack_latency_seconds_count")).toBe(sent(m, "message") + sent(m, "edit") + sent(m, "delete"));
    expect(m.get("turnstream_session_waits")).toBe(0);
    // A text turn is one message: no gap between bubbles.
    expect(m.get("turnstream_bubble_gap_seconds_count")).toBe(0);
    expect(m.value("turnstream_send_failures_total", { reason: "timeout" })).toBe(0);
    expect(m.get("turnstream_agent_exits_total", { cause: "failed" })).toBe(1);
    expect(m.get("turnstream_gateway_connected")).toBe(1);
    expect(m.get("turnstream_partitions_owned")).toBe(16);
    expect(m.get("turnstream_partitions")).toBe(16);
    expect(m.get("turnstream_queued_events")).toBe(0);
    expect(m.get("turnstream_recovered_turns_total")).toBe(0);
    // Labels never carry a session, user, channel or event id.
    for (const key of m.samples.keys()) expect(key).not.toMatch(/chat-1|user-1|bot-9|evt-|msg-|telegram/);
  });

  it("a turn that fails on the broker side (the agent cannot start) counts as failed", async () => {
    const s = await start({ agent: { working_dir: "/nonexistent/turnstream-metrics" } });
    s.gateway.broadcast(userEvent("text"));
    await turnsSettled(s, 1);
    expect(s.records.some((r) => r.msg === "turn failed")).toBe(true);
    const m = await scrapeUntil(s, (now) => sent(now, "message") === s.replies.length);
    expect(events(m, "turn")).toBe(1);
    expect(m.get("turnstream_turns_total", { mode: "text", outcome: "failed" })).toBe(1);
    expect(m.get("turnstream_turns_total", { mode: "text", outcome: "completed" })).toBe(0);
    expect(m.get("turnstream_turn_duration_seconds_count", { mode: "text" })).toBe(1);
    // The user still saw one ⚠️ line.
    expect(s.replies).toHaveLength(1);
    expect(m.get("turnstream_first_message_seconds_count")).toBe(1);
  });

  it("queued events: what waits behind a busy session shows in the gauge until its turn runs", async () => {
    const s = await start({ queue: { debounce_ms: 0 } });
    s.gateway.broadcast(userEvent("slow 1500"));
    expect(await until(() => s.agentEvents().some((line) => line.startsWith("prompt")), 10_000)).toBe(true);
    s.gateway.broadcast(userEvent("text"));
    s.gateway.broadcast(userEvent("text"));
    const waiting = await scrapeUntil(s, (m) => m.value("turnstream_queued_events") === 2);
    expect(waiting.get("turnstream_queued_events")).toBe(2);
    await turnsSettled(s, 2); // the slow turn, then the two collected into one turn
    const after = await scrapeUntil(s, (m) => m.value("turnstream_queued_events") === 0);
    expect(after.get("turnstream_queued_events")).toBe(0);
    expect(events(after, "turn")).toBe(3);
  });

  it("structured: three bubbles paced 200 ms apart, and a proactive event triage suppresses", async () => {
    const s = await start({
      delivery: { mode: "structured", bubble_delay_ms: 200 },
      triage: { enabled: true, quiet_hours: quietNow(), timezone: "UTC" },
    });
    s.gateway.broadcast(userEvent("envelope"));
    await turnsSettled(s, 1);
    s.gateway.broadcast(userEvent("envelope", { proactive: true }));
    expect(await until(() => s.records.some((r) => r.msg === "proactive event suppressed by triage"), 10_000)).toBe(true);
    const m = await scrapeUntil(s, (now) => events(now, "suppressed") === 1 && sent(now, "reaction") === reactionFrames(s));
    expect(s.replies).toHaveLength(3);
    expect(sent(m, "message")).toBe(3);
    expect(events(m, "turn")).toBe(1);
    expect(events(m, "suppressed")).toBe(1);
    expect(m.get("turnstream_triage_decisions_total", { decision: "suppressed", reason: "quiet_hours" })).toBe(1);
    expect(m.get("turnstream_triage_decisions_total", { decision: "wake", reason: "none" })).toBe(0);
    expect(m.get("turnstream_turns_total", { mode: "structured", outcome: "completed" })).toBe(1);
    expect(m.get("turnstream_turns_total", { mode: "structured", outcome: "failed" })).toBe(0);
    expect(m.get("turnstream_first_message_seconds_count")).toBe(1);
    // Two gaps between three bubbles, each the 200 ms pacing. Real timers count from the event
    // loop's cached time, so on a busy loop one fires a few ms before 200 ms of wall time have
    // passed since the departure it waits on (0.387 s for both, once, on a loaded 2-core machine):
    // the sum is checked with room for that, never near the 0.1 s bucket. Exact gaps: paceBubbles' marble specs.
    expect(m.get("turnstream_bubble_gap_seconds_count")).toBe(2);
    expect(m.get("turnstream_bubble_gap_seconds_bucket", { le: "0.1" })).toBe(0);
    expect(m.value("turnstream_bubble_gap_seconds_sum")).toBeGreaterThanOrEqual(0.35);
  });

  it("sequential: each bubble as the agent decides it", async () => {
    const s = await start({ delivery: { mode: "sequential" } });
    s.gateway.broadcast(userEvent("sequential"));
    await turnsSettled(s, 1);
    const m = await scrapeUntil(s, (now) => sent(now, "reaction") === reactionFrames(s));
    expect(s.replies).toHaveLength(3);
    expect(sent(m, "message")).toBe(3);
    expect(m.get("turnstream_turns_total", { mode: "sequential", outcome: "completed" })).toBe(1);
    expect(m.get("turnstream_turn_duration_seconds_count", { mode: "sequential" })).toBe(1);
    expect(m.get("turnstream_first_message_seconds_count")).toBe(1);
    expect(m.get("turnstream_bubble_gap_seconds_count")).toBe(2);
  });
});

/** A quiet window around now, in UTC. */
function quietNow(): string {
  const clock = (offsetMinutes: number) => {
    const at = new Date(Date.now() + offsetMinutes * 60_000);
    return `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`;
  };
  return `${clock(-60)}-${clock(60)}`;
}
