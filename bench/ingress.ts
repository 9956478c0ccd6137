// Ingress throughput on the embedded bus, turnstream side by side with the naive baseline
// (bench/baseline/): gateway frames from a loopback WebSocket gateway in its own process, through
// parse → skip → trust → queue (msg-id dedupe) → per-session lane → triage (proactive
// events) → an instant in-process agent. Runs alternate between the two, so machine noise hits
// both alike. Prints one JSON line: medians of the runs and turnstream ÷ baseline.
import { emit, note, sized } from "./lib/benchEnv.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { ingressRun, PROACTIVE_EVERY, SESSIONS } from "./lib/ingressRuns.js";
import { startNaiveIngress } from "./lib/naiveIngress.js";
import { median, round } from "./lib/stats.js";
import { startTurnstreamIngress, type IngressSubject } from "./lib/turnstreamIngress.js";

const events = sized("INGRESS_EVENTS", 50_000, 5_000);
const runs = sized("INGRESS_RUNS", 5, 3);
const warmup = Math.min(events, 10_000);

interface Contender {
  readonly name: "turnstream" | "baseline";
  readonly gateway: RemoteGateway;
  readonly subject: IngressSubject;
  readonly rates: number[];
}

async function contender(name: Contender["name"]): Promise<Contender> {
  const gateway = await RemoteGateway.start();
  const subject = name === "turnstream" ? await startTurnstreamIngress({ gatewayUrl: gateway.url, gatewayToken: gateway.token }) : await startNaiveIngress(gateway.url, gateway.token);
  await gateway.connected();
  return { name, gateway, subject, rates: [] };
}

// BENCH_ONLY=turnstream|baseline runs one side (for `node --cpu-prof`); the JSON then lacks the other.
const only = process.env.BENCH_ONLY;
const names = (["turnstream", "baseline"] as const).filter((name) => only === undefined || only === name);
const contenders: Contender[] = [];
for (const name of names) contenders.push(await contender(name));
for (const c of contenders) await ingressRun(c.gateway, c.subject, warmup, `${c.name}-warmup`, 120_000);
for (let run = 0; run < runs; run++) {
  for (const c of contenders) c.rates.push(await ingressRun(c.gateway, c.subject, events, `${c.name}-${run}`, 300_000));
}
for (const c of contenders) {
  await c.subject.stop();
  await c.gateway.stop();
}
const summary = (name: Contender["name"]) => {
  const rates = contenders.find((c) => c.name === name)?.rates ?? [];
  return { eventsPerSecond: Math.round(median(rates)), runs: rates.map((r) => Math.round(r)) };
};
const turnstream = summary("turnstream");
const baseline = summary("baseline");
note("done");
emit({
  benchmark: "ingress-embedded",
  events,
  runs,
  sessions: SESSIONS,
  proactiveShare: 1 / PROACTIVE_EVERY,
  turnstream,
  baseline,
  ratio: round(turnstream.eventsPerSecond / baseline.eventsPerSecond, 2),
});
