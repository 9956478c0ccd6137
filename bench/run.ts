// `npm run bench`: runs every benchmark in its own Node process (one JSON line each), records the
// machine and how busy it was, writes bench/results.json and regenerates the results section of
// docs/benchmarks.md. BENCH_QUICK=1: a smoke run (results and doc under dist-bench/).
// BENCH_SELECT=pacing,memory: run only those and keep the other results from the last run.
// Every benchmark runs under the broker's generation-size policy (NODE_OPTIONS, below), which its
// forked children (the gateway process, scale workers) inherit; agents do not: the session pool
// gives them only HOME, PATH and USER of the broker's environment (src/acp/agentEnvironment.ts).
import { execFileSync, spawn } from "node:child_process";
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { fileURLToPath } from "node:url";
import { note, quick } from "./lib/benchEnv.js";
import { cpuSnapshot, otherWorkShare } from "./lib/machineShare.js";
import { natsServerBinary } from "./lib/natsServer.js";
import type { BenchmarkRecord, BenchResults, Machine } from "./report/benchResults.js";
import { readResults, writeReport } from "./report/writeReport.js";

interface Benchmark {
  readonly name: string;
  readonly script: string;
  readonly nodeArgs?: readonly string[];
}

/**
 * The broker's generation-size policy (docs/scaling.md, "Node flags"): a 64 MiB semi-space, so
 * the short-lived garbage of events in flight dies young in fewer scavenges. Set through
 * NODE_OPTIONS, as a deployment sets it, so forked children get it too. BENCH_NODE_OPTIONS
 * replaces it; BENCH_NODE_OPTIONS= (empty) runs on Node's defaults, for a before/after.
 */
const POLICY_NODE_OPTIONS = "--max-semi-space-size=64";
const nodeOptions = [process.env.NODE_OPTIONS, process.env.BENCH_NODE_OPTIONS ?? POLICY_NODE_OPTIONS].filter(Boolean).join(" ");

const BENCHMARKS: readonly Benchmark[] = [
  { name: "ingress-embedded", script: "ingress.js" },
  { name: "ingress-nats", script: "ingressNats.js" },
  // --expose-gc: start-up's garbage is collected before the counted turns (see the script).
  { name: "bubble-overhead", script: "bubbleOverhead.js", nodeArgs: ["--expose-gc"] },
  { name: "shaping", script: "shaping.js" },
  { name: "pacing", script: "pacing.js" },
  { name: "memory", script: "memory.js", nodeArgs: ["--expose-gc"] },
  { name: "scale", script: "scale.js" },
  { name: "soak", script: "soak.js", nodeArgs: ["--expose-gc"] },
  { name: "text-paths", script: "textPaths.js" },
  { name: "triage-admit", script: "triageAdmit.js" },
  { name: "agent-sessions", script: "agentSessions.js" },
];

function machine(): Machine {
  let natsServer = "not installed";
  try {
    natsServer = execFileSync(natsServerBinary, ["--version"], { encoding: "utf8" }).trim().replace(/^nats-server:\s*/, "");
  } catch {
    // reported as not installed; the NATS benchmarks skip themselves
  }
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    natsServer,
  };
}

/** Runs one benchmark script; resolves with its last JSON line that names a benchmark. */
function runOne(benchmark: Benchmark): Promise<Record<string, unknown>> {
  const script = fileURLToPath(new URL(benchmark.script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(benchmark.nodeArgs ?? []), script], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_OPTIONS: nodeOptions } });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = stdout
        .split("\n")
        .reverse()
        .find((text) => text.startsWith("{") && text.includes('"benchmark"'));
      if (code !== 0 || line === undefined) reject(new Error(`${benchmark.name} exited with ${code}${line === undefined ? " without a result line" : ""}`));
      else resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

const selected = process.env.BENCH_SELECT?.split(",").map((name) => name.trim()).filter(Boolean);
const unknown = selected?.filter((name) => !BENCHMARKS.some((b) => b.name === name)) ?? [];
if (unknown.length > 0) throw new Error(`unknown benchmark(s) ${unknown.join(", ")}; known: ${BENCHMARKS.map((b) => b.name).join(", ")}`);

const records: Record<string, BenchmarkRecord> = {};
let failed = 0;
for (const benchmark of BENCHMARKS) {
  if (selected !== undefined && !selected.includes(benchmark.name)) continue;
  note(`── ${benchmark.name}${nodeOptions === "" ? "" : ` (NODE_OPTIONS=${nodeOptions})`}`);
  const before = loadavg()[0] ?? 0;
  const cpuBefore = cpuSnapshot();
  const started = performance.now();
  try {
    const result = await runOne(benchmark);
    const share = otherWorkShare(cpuBefore, cpuSnapshot());
    records[benchmark.name] = {
      ranAt: new Date().toISOString(),
      seconds: Math.round((performance.now() - started) / 100) / 10,
      loadAverage: { before: Math.round(before * 100) / 100, after: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
      ...(share === undefined ? {} : { otherWorkShare: Math.round(share * 1000) / 1000 }),
      nodeOptions,
      result,
    };
    console.log(JSON.stringify(result));
  } catch (err) {
    failed += 1;
    note(`${benchmark.name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
// The others' results are read only now, so those of another selected run that finished meanwhile are kept too.
const previous = selected === undefined ? undefined : readResults(quick);
const results: BenchResults = { generatedAt: new Date().toISOString(), quick, machine: machine(), benchmarks: { ...previous?.benchmarks, ...records } };
note(`wrote ${writeReport(results)}`);
if (failed > 0) process.exitCode = 1;
