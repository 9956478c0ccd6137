// What `[pool] sessions_per_agent` buys (issue 43): live conversations per GB of agent memory, with
// the real codex-acp of the devDependencies run offline against a local fake Responses API. Two
// real SessionPools, N = 1 (a process per conversation, OpenAB's model) and N =
// `AGENT_SESSIONS_PER_AGENT` (10), each open `AGENT_SESSIONS_CONVERSATIONS` (20) conversations at
// once — each one `session/new` and one prompt, all left live — and every agent process group's
// memory is read from /proc (bench/lib/agentGroups.ts), each pool's by its own processes. Then
// `AGENT_SESSIONS_ROUNDS` timed rounds per pool of one prompt per conversation, all its
// conversations at once: the saving must not be paid in latency. Both pools stay live and their
// rounds alternate N=1, N=10, N=10, N=1, … so the machine's other work weighs on both alike.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastValueFrom, toArray } from "rxjs";
import { createLogger, createSessionPool, MemorySessionStore, resolveConfig, type SessionPool } from "../src/index.js";
import { readAgentGroups, type AgentGroup } from "./lib/agentGroups.js";
import { emit, note, sized, sleep } from "./lib/benchEnv.js";
import { codexAcpVersion, codexAgent, type CodexAgent } from "./lib/codexAcp.js";
import { FakeResponsesApi } from "./lib/fakeResponsesApi.js";
import { cpuSnapshot } from "./lib/machineShare.js";
import { distribution, median, round } from "./lib/stats.js";

const conversations = sized("AGENT_SESSIONS_CONVERSATIONS", 20, 4);
const perAgent = sized("AGENT_SESSIONS_PER_AGENT", 10, 2);
const rounds = sized("AGENT_SESSIONS_ROUNDS", 10, 2);
/** After the last opening turn answered, before /proc is read: the agents' start-up work has settled. */
const settleMs = sized("AGENT_SESSIONS_SETTLE_MS", 2_000, 500);

const KiB_PER_MiB = 1024;
/** /proc/stat counts clock ticks of 10 ms (USER_HZ 100). */
const MS_PER_TICK = 10;

/** One pool under test and what was measured of it. */
interface PoolRun {
  readonly sessionsPerAgent: number;
  readonly pool: SessionPool;
  readonly keys: readonly string[];
  readonly codex: CodexAgent;
  readonly dir: string;
  /** Conversations opened at once → the last one's first answer. */
  openMs: number;
  /** Its agent processes, read after every conversation's first turn: the acceptance's figure. */
  groups: readonly AgentGroup[];
  /** Read again after the timed rounds. */
  groupsAfterRounds: readonly AgentGroup[];
  readonly latenciesMs: number[];
  /** The agents' CPU time over the timed rounds. */
  agentCpuMs: number;
  /** Over its timed rounds: the machine's CPU time, and the part of it other processes (not this one, not its agents) used. */
  machineMs: number;
  otherMs: number;
  turns: number;
  answered: number;
}

const sum = (groups: readonly AgentGroup[], field: "rssKiB" | "anonKiB" | "pssKiB" | "cpuMs") => groups.reduce((total, group) => total + group[field], 0);

/** Runs one turn of `key` and times it; answered when the agent's text carries the fake model's echo of `text`. */
async function timedTurn(run: PoolRun, key: string, text: string): Promise<number> {
  const started = performance.now();
  const events = await lastValueFrom(run.pool.withSession(key, (session) => session.prompt([{ type: "text", text }]).pipe(toArray())));
  const ms = performance.now() - started;
  const said = events.map((event) => (event.type === "text" ? event.text : "")).join("");
  run.turns += 1;
  if (said.includes(`ack ${text}`) && events.some((event) => event.type === "end")) run.answered += 1;
  return ms;
}

/** The agent groups of `run`'s processes, read now. */
function groupsOf(run: PoolRun): AgentGroup[] {
  const pids = new Set(run.groups.map((group) => group.pid));
  return readAgentGroups().filter((group) => pids.has(group.pid));
}

/** A pool at `sessionsPerAgent` with every conversation opened (one turn each), its agents' memory read once they settled. */
async function openPool(api: FakeResponsesApi, sessionsPerAgent: number): Promise<PoolRun> {
  const codex = codexAgent(api.url);
  const dir = mkdtempSync(join(tmpdir(), "turnstream-bench-sessions-"));
  const config = resolveConfig({
    agent: { command: codex.command, args: [], working_dir: dir, env: codex.env, inherit_env: [] },
    pool: { max_sessions: conversations, sessions_per_agent: sessionsPerAgent, state_dir: dir },
  });
  const pool = createSessionPool(config, { env: process.env, logger: createLogger({ level: "silent" }), store: new MemorySessionStore() });
  const keys = Array.from({ length: conversations }, (_, c) => `telegram:-100${1_000_000_000 + sessionsPerAgent * 1_000 + c}:`);
  const run: PoolRun = { sessionsPerAgent, pool, keys, codex, dir, openMs: 0, groups: [], groupsAfterRounds: [], latenciesMs: [], agentCpuMs: 0, machineMs: 0, otherMs: 0, turns: 0, answered: 0 };
  const before = new Set(readAgentGroups().map((group) => group.pid));
  const started = performance.now();
  await Promise.all(keys.map((key, c) => timedTurn(run, key, `hello from conversation ${c}`)));
  run.openMs = performance.now() - started;
  if (pool.size !== conversations) throw new Error(`expected ${conversations} live sessions, got ${pool.size}`);
  await sleep(settleMs);
  run.groups = readAgentGroups().filter((group) => !before.has(group.pid));
  if (run.groups.length !== pool.agentProcesses) throw new Error(`found ${run.groups.length} new agent processes in /proc, the pool holds ${pool.agentProcesses}`);
  return run;
}

/** One timed round: a turn in every conversation of `run` at once; the agents' CPU and the machine's meanwhile. */
async function timedRound(run: PoolRun, r: number): Promise<void> {
  const groupsBefore = groupsOf(run);
  const machineBefore = cpuSnapshot();
  const ownBefore = process.cpuUsage();
  run.latenciesMs.push(...(await Promise.all(run.keys.map((key, c) => timedTurn(run, key, `round ${r} of conversation ${c}`)))));
  const own = process.cpuUsage(ownBefore);
  const machineAfter = cpuSnapshot();
  const agentCpuMs = sum(groupsOf(run), "cpuMs") - sum(groupsBefore, "cpuMs");
  run.agentCpuMs += agentCpuMs;
  if (machineBefore !== undefined && machineAfter !== undefined) {
    run.machineMs += (machineAfter.total - machineBefore.total) * MS_PER_TICK;
    run.otherMs += Math.max(0, (machineAfter.busy - machineBefore.busy) * MS_PER_TICK - (own.user + own.system) / 1000 - agentCpuMs);
  }
}

async function closePool(run: PoolRun): Promise<void> {
  await run.pool.close();
  run.codex.cleanup();
  rmSync(run.dir, { recursive: true, force: true });
}

/** One pool's figures: memory per live conversation, latency over its timed turns, CPU per turn. */
function summary(run: PoolRun) {
  const perConversation = (field: "rssKiB" | "anonKiB" | "pssKiB", groups = run.groups) => sum(groups, field) / KiB_PER_MiB / conversations;
  const mibPerConversation = perConversation("rssKiB");
  const anonMibPerConversation = perConversation("anonKiB");
  const perProcess = (field: "rssKiB" | "anonKiB") => round(median(run.groups.map((group) => group[field] / KiB_PER_MiB)), 1);
  return {
    sessionsPerAgent: run.sessionsPerAgent,
    agentProcesses: run.groups.length,
    processesPerGroup: Math.max(...run.groups.map((group) => group.processes)),
    threadsPerGroup: median(run.groups.map((group) => group.threads)),
    rssMiB: round(sum(run.groups, "rssKiB") / KiB_PER_MiB, 1),
    mibPerConversation: round(mibPerConversation, 2),
    conversationsPerGiB: round(1024 / mibPerConversation, 1),
    anonMibPerConversation: round(anonMibPerConversation, 2),
    anonConversationsPerGiB: round(1024 / anonMibPerConversation, 1),
    pssMibPerConversation: round(perConversation("pssKiB"), 2),
    mibPerConversationAfterRounds: round(perConversation("rssKiB", run.groupsAfterRounds), 2),
    /** One agent process group (median). */
    processRssMiB: perProcess("rssKiB"),
    processAnonMiB: perProcess("anonKiB"),
    openMs: round(run.openMs),
    latencyMs: distribution(run.latenciesMs, 1),
    agentCpuMsPerTurn: round(run.agentCpuMs / run.latenciesMs.length, 1),
    ...(run.machineMs === 0 ? {} : { otherWorkShare: round(run.otherMs / run.machineMs, 3) }),
    turns: run.turns,
    unanswered: run.turns - run.answered,
  };
}

/** gemini-cli and claude-agent-acp: each needs an offline fake of its own model API, which bench/lib does not have, so they are only looked for. */
function otherAgents(): Record<string, string> {
  const where = (bin: string, packages: readonly string[]) => {
    try {
      return execFileSync("sh", ["-c", `command -v ${bin}`], { encoding: "utf8" }).trim();
    } catch {
      for (const name of packages) {
        try {
          return createRequire(import.meta.url).resolve(`${name}/package.json`);
        } catch {
          // not this one
        }
      }
      return undefined;
    }
  };
  const status = (bin: string, packages: readonly string[]) => {
    const at = where(bin, packages);
    return at === undefined
      ? `not installed (no \`${bin}\` on PATH, no ${packages.join(" or ")} in node_modules): not measured`
      : `installed (${at}) but not measured: bench/lib has no offline fake of its model API yet`;
  };
  return {
    "gemini-cli": status("gemini", ["@google/gemini-cli"]),
    "claude-agent-acp": status("claude-agent-acp", ["@agentclientprotocol/claude-agent-acp", "@zed-industries/claude-code-acp"]),
  };
}

const api = await FakeResponsesApi.start((input) => `ack ${input}`);
const opened: PoolRun[] = [];
let oneRun: PoolRun;
let sharedRun: PoolRun;
try {
  opened.push((oneRun = await openPool(api, 1)));
  opened.push((sharedRun = await openPool(api, perAgent)));
  // ABBA by round: one, shared, shared, one, …
  for (let i = 0; i < 2 * rounds; i++) {
    const run = i % 4 === 0 || i % 4 === 3 ? oneRun : sharedRun;
    await timedRound(run, i);
  }
  for (const run of opened) {
    run.groupsAfterRounds = groupsOf(run);
    if (run.groupsAfterRounds.length !== run.groups.length) throw new Error(`${run.groups.length - run.groupsAfterRounds.length} agent processes of sessions_per_agent ${run.sessionsPerAgent} went away during the rounds`);
    const rss = sum(run.groups, "rssKiB") / KiB_PER_MiB;
    note(
      `sessions_per_agent ${run.sessionsPerAgent}: ${run.groups.length} agent processes, ${round(rss, 1)} MiB RSS (${round(rss / conversations, 2)} MiB per conversation, ` +
        `anonymous ${round(sum(run.groups, "anonKiB") / KiB_PER_MiB / conversations, 2)}); turn p50 ${round(median(run.latenciesMs), 1)} ms, ` +
        `agent CPU ${round(run.agentCpuMs / run.latenciesMs.length, 1)} ms per turn, other work ${run.machineMs === 0 ? "—" : `${Math.round((run.otherMs / run.machineMs) * 100)} %`}; ${run.answered}/${run.turns} answered`,
    );
  }
} finally {
  await Promise.all(opened.map(closePool));
  await api.close();
}

const one = summary(oneRun);
const shared = summary(sharedRun);
// A process with one session (N = 1), and what each further session on a shared process adds to it.
const further = (whole: number, first: number) => round(perAgent > 1 ? (whole - first) / (perAgent - 1) : Number.NaN, 2);
emit({
  benchmark: "agent-sessions",
  agent: `codex-acp ${codexAcpVersion() ?? "unknown"}`,
  conversations,
  sessionsPerAgent: perAgent,
  rounds,
  one,
  shared,
  firstSessionMiB: one.processRssMiB,
  furtherSessionMiB: further(shared.processRssMiB, one.processRssMiB),
  firstSessionAnonMiB: one.processAnonMiB,
  furtherSessionAnonMiB: further(shared.processAnonMiB, one.processAnonMiB),
  memoryRatio: round(one.mibPerConversation / shared.mibPerConversation, 2),
  anonMemoryRatio: round(one.anonMibPerConversation / shared.anonMibPerConversation, 2),
  pssRatio: round(one.pssMibPerConversation / shared.pssMibPerConversation, 2),
  latencyP50Ratio: round(shared.latencyMs.p50 / one.latencyMs.p50, 3),
  latencyP99Ratio: round(shared.latencyMs.p99 / one.latencyMs.p99, 3),
  agentCpuPerTurnRatio: round(shared.agentCpuMsPerTurn / one.agentCpuMsPerTurn, 3),
  unanswered: one.unanswered + shared.unanswered,
  notMeasured: otherAgents(),
});
