import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { BenchResults } from "../../bench/report/benchResults.js";
import { renderAgentSessions } from "../../bench/report/renderAgentSessions.js";
import { targetRows } from "../../bench/report/targets.js";

const committed = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as BenchResults;

/** An agent-sessions result line as bench/agentSessions.ts emits it, with the ratios given. */
function sessionsResult(memoryRatio: number, latencyP99Ratio: number): Record<string, unknown> {
  const side = (sessionsPerAgent: number, processes: number, mib: number, anon: number, p50: number, p99: number, otherWorkShare: number) => ({
    sessionsPerAgent,
    agentProcesses: processes,
    rssMiB: mib * 20,
    mibPerConversation: mib,
    conversationsPerGiB: 1024 / mib,
    anonMibPerConversation: anon,
    anonConversationsPerGiB: 1024 / anon,
    latencyMs: { samples: 200, p50, p90: p99, p99, max: p99 },
    agentCpuMsPerTurn: 70,
    otherWorkShare,
  });
  return {
    benchmark: "agent-sessions",
    agent: "codex-acp 0.16.0",
    conversations: 20,
    sessionsPerAgent: 10,
    rounds: 10,
    one: side(1, 20, 74.3, 11.4, 900, 1_000, 0.25),
    shared: side(10, 2, 9, 2.6, 950, 1_000 * latencyP99Ratio, 0.4),
    firstSessionMiB: 74.7,
    furtherSessionMiB: 1.32,
    firstSessionAnonMiB: 11.6,
    furtherSessionAnonMiB: 1.42,
    memoryRatio,
    anonMemoryRatio: 4.37,
    pssRatio: 5,
    latencyP50Ratio: 950 / 900,
    latencyP99Ratio,
    agentCpuPerTurnRatio: 1.01,
    unanswered: 0,
    notMeasured: { "gemini-cli": "not installed: not measured" },
  };
}

const withSessions = (result: Record<string, unknown>): BenchResults => ({
  ...committed,
  benchmarks: { ...committed.benchmarks, "agent-sessions": { ranAt: "2026-12-06T20:00:00.000Z", seconds: 40, loadAverage: { before: 1, after: 2 }, result } },
});
const status = (results: BenchResults, prefix: string) => targetRows(results).find((row) => row.measure.startsWith(prefix))?.status;

describe("the agent-sessions report (issue 43)", () => {
  it("judges the memory per live conversation as N = 1 ÷ N = 10, at least 5×", () => {
    expect(status(withSessions(sessionsResult(5, 1)), "Agent RSS per live conversation, sessions_per_agent 1 ÷ 10")).toBe("met");
    expect(status(withSessions(sessionsResult(4.99, 1)), "Agent RSS per live conversation, sessions_per_agent 1 ÷ 10")).toBe("missed");
    expect(status(withSessions(sessionsResult(4.99, 1)), "Agent RSS per live conversation, codex-acp, sessions_per_agent 10")).toBe("report");
  });

  it("judges turn latency p99 as N = 10 ÷ N = 1, at most 1.2×, and keeps the milliseconds as information", () => {
    expect(status(withSessions(sessionsResult(8, 1.2)), "Turn latency p99, sessions_per_agent 10 ÷ 1")).toBe("met");
    expect(status(withSessions(sessionsResult(8, 1.21)), "Turn latency p99, sessions_per_agent 10 ÷ 1")).toBe("missed");
    expect(status(withSessions(sessionsResult(8, 1.21)), "Turn latency p99, 20 conversations at once, codex-acp, sessions_per_agent 10")).toBe("report");
  });

  it("renders a row per N, the per-session costs and the agents not measured", () => {
    const lines = renderAgentSessions(sessionsResult(8.26, 1.1));
    expect(lines[0]).toBe("### Sessions per agent process (codex-acp 0.16.0, 20 live conversations)");
    expect(lines).toContain("| 1 | 20 | 1,486.0 | 74.30 | 13.8 | 11.40 | 89.8 | 900.0 | 1,000.0 | 70.0 | 25 % |");
    expect(lines).toContain("| 10 | 2 | 180.0 | 9.00 | 113.8 | 2.60 | 393.8 | 950.0 | 1,100.0 | 70.0 | 40 % |");
    const summary = lines.find((line) => line.startsWith("Memory read once")) ?? "";
    expect(summary).toContain("each further session in the same process: +1.32 MiB RSS (+1.42 MiB anonymous)");
    expect(summary).toContain("RSS 8.26×, anonymous 4.37×");
    expect(summary).toContain("gemini-cli: not installed: not measured.");
  });

  it("renders nothing when the benchmark did not run", () => {
    expect(renderAgentSessions(undefined)).toEqual([]);
  });
});
