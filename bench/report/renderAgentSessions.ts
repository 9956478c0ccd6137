import { numberAt } from "./benchResults.js";

const n = (value: number | undefined, digits = 0) => (value === undefined ? "—" : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }));

/** The agent-sessions table: agent memory per live conversation and turn latency, a process per conversation against N sessions per process. */
export function renderAgentSessions(sessions: Record<string, unknown> | undefined): string[] {
  if (numberAt(sessions, "memoryRatio") === undefined) return [];
  const row = (side: "one" | "shared") => {
    const at = (path: string, digits = 0) => n(numberAt(sessions, `${side}.${path}`), digits);
    const share = numberAt(sessions, `${side}.otherWorkShare`);
    return [
      at("sessionsPerAgent"),
      at("agentProcesses"),
      at("rssMiB", 1),
      at("mibPerConversation", 2),
      at("conversationsPerGiB", 1),
      at("anonMibPerConversation", 2),
      at("anonConversationsPerGiB", 1),
      at("latencyMs.p50", 1),
      at("latencyMs.p99", 1),
      at("agentCpuMsPerTurn", 1),
      share === undefined ? "—" : `${Math.round(share * 100)} %`,
    ];
  };
  const notMeasured = (sessions?.notMeasured ?? {}) as Record<string, unknown>;
  return [
    `### Sessions per agent process (${String(sessions?.agent)}, ${n(numberAt(sessions, "conversations"))} live conversations)`,
    "",
    "| `sessions_per_agent` | Agent processes | RSS, MiB | RSS MiB / conversation | Conversations / GiB (RSS) | Anonymous MiB / conversation | Conversations / GiB (anonymous) | Turn p50, ms | Turn p99, ms | Agent CPU ms / turn | Other processes' CPU during its rounds |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    `| ${row("one").join(" | ")} |`,
    `| ${row("shared").join(" | ")} |`,
    "",
    `Memory read once every conversation had one \`session/new\` and one answered prompt; latency over ${n(numberAt(sessions, "one.latencyMs.samples"))} turns per row ` +
      `(${n(numberAt(sessions, "rounds"))} rounds of a turn in every conversation at once, the two pools' rounds alternating). ` +
      `One agent process with one session: ${n(numberAt(sessions, "firstSessionMiB"), 1)} MiB RSS (${n(numberAt(sessions, "firstSessionAnonMiB"), 1)} MiB anonymous); ` +
      `each further session in the same process: +${n(numberAt(sessions, "furtherSessionMiB"), 2)} MiB RSS (+${n(numberAt(sessions, "furtherSessionAnonMiB"), 2)} MiB anonymous). ` +
      `Per conversation, N = 1 ÷ N = ${n(numberAt(sessions, "sessionsPerAgent"))}: RSS ${n(numberAt(sessions, "memoryRatio"), 2)}×, anonymous ${n(numberAt(sessions, "anonMemoryRatio"), 2)}×, PSS ${n(numberAt(sessions, "pssRatio"), 2)}×; ` +
      `N = ${n(numberAt(sessions, "sessionsPerAgent"))} ÷ N = 1: turn p50 ${n(numberAt(sessions, "latencyP50Ratio"), 2)}×, p99 ${n(numberAt(sessions, "latencyP99Ratio"), 2)}×, agent CPU per turn ${n(numberAt(sessions, "agentCpuPerTurnRatio"), 2)}×; ` +
      `${n(numberAt(sessions, "unanswered"))} turns unanswered.` +
      Object.entries(notMeasured)
        .map(([agent, why]) => ` ${agent}: ${String(why)}.`)
        .join(""),
    "",
  ];
}
