import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { KV } from "@nats-io/kv";
import { stringify } from "smol-toml";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../src/bus/nats/buckets.js";
import { DevGateway, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { partitionKey, presenceKey } from "../../src/scale/leaseBucket.js";
import { subjects } from "../../src/wire/index.js";
import { eventually, isRunning, scratch, scriptedAgentPath } from "../helpers/agents.js";
import { spawnLogged } from "../helpers/cli.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";
import { userEvent } from "../helpers/stack.js";

// `/readyz` over real `turnstream run` processes: a real dev gateway that comes and goes, a real
// nats-server whose lease bucket the test itself holds, SIGTERM while a turn runs. Every wait is a
// poll with a generous bound (two shared, noisy cores); nothing asserts how long anything took.

const TEST_TIMEOUT = 60_000;
/** Bound on one awaited transition (a reconnect waits out the connector's backoff: 1 s, 2 s, 4 s …). */
const SETTLE_MS = 20_000;
const POLL_MS = 50;

type Missing = "broker" | "bus" | "gateway" | "partitions";
interface ReadyBody {
  readonly status: "ready" | "not_ready";
  readonly phase: "starting" | "running" | "draining" | "stopped";
  readonly missing: readonly Missing[];
}
interface Probe {
  readonly status: number;
  readonly body: ReadyBody;
}

/** One spawned `turnstream run`, with its parsed JSON log lines. */
interface Proc {
  readonly name: string;
  readonly child: ChildProcessWithoutNullStreams;
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every `/readyz` answer this test read from it, in order. */
  readonly probes: Probe[];
  stderr(): string;
  /** Log lines with this message. */
  logged(msg: string): Record<string, unknown>[];
}

const dir = mkdtempSync(join(tmpdir(), "turnstream-readyz-"));
const procs: Proc[] = [];
const gateways: DevGateway[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
let configs = 0;

afterEach(async () => {
  // Nothing a test started outlives it: SIGTERM, then SIGKILL whatever is still there.
  const alive = procs.splice(0).filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of alive) p.child.kill("SIGTERM");
  await Promise.all(
    alive.map(async (p) => {
      const timer = setTimeout(() => p.child.kill("SIGKILL"), 10_000);
      await p.exited;
      clearTimeout(timer);
    }),
  );
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all(gateways.splice(0).map((g) => g.close().catch(() => undefined)));
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `config` as TOML and spawns `turnstream run --role <role> --config <file>`. */
function launch(name: string, role: "all" | "edge" | "worker", config: Record<string, unknown>): Proc {
  const file = join(dir, `${name}-${++configs}.toml`);
  writeFileSync(file, stringify({ ...config, metrics: { enabled: true, listen: "127.0.0.1:0" }, log: { level: "info" } }));
  const { child, logs, exited, stderr } = spawnLogged(["run", "--role", role, "--config", file]);
  const proc: Proc = {
    name,
    child,
    logs,
    exited,
    probes: [],
    stderr,
    logged: (msg) => logs.filter((line) => line.msg === msg),
  };
  procs.push(proc);
  return proc;
}

/** What a process printed, for failure messages. */
function transcript(p: Proc): string {
  return `${p.name} stderr:\n${p.stderr()}\n${p.name} stdout:\n${p.logs.map((l) => JSON.stringify(l)).join("\n")}`;
}

/** The metrics listener's URL, from the `metrics endpoint listening` line. */
async function metricsUrl(p: Proc): Promise<string> {
  const found = await Promise.race([
    eventually(() => p.logged("metrics endpoint listening").length > 0, SETTLE_MS),
    p.exited.then(() => false),
  ]);
  if (!found) throw new Error(`${p.name} never logged "metrics endpoint listening"\n${transcript(p)}`);
  const url = p.logged("metrics endpoint listening")[0]?.url;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return url as string;
}

async function get(url: string): Promise<{ status: number; text: string } | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, text: await response.text() };
  } catch {
    return undefined; // not listening (yet, or any more), or too slow this time
  }
}

/** One `/readyz` answer, recorded on the process; undefined when nothing answered. */
async function readyz(p: Proc, base: string): Promise<Probe | undefined> {
  const answer = await get(`${base}/readyz`);
  if (answer === undefined) return undefined;
  const probe = { status: answer.status, body: JSON.parse(answer.text) as ReadyBody };
  p.probes.push(probe);
  return probe;
}

/** Polls `/readyz` every ~50 ms until an answer satisfies `match`; throws with the last answers otherwise. */
async function readyzUntil(p: Proc, base: string, what: string, match: (probe: Probe) => boolean, timeoutMs = SETTLE_MS): Promise<Probe> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = await readyz(p, base);
    if (probe !== undefined && match(probe)) return probe;
    if (Date.now() > deadline) {
      const last = p.probes.slice(-5).map((q) => `${q.status} ${JSON.stringify(q.body)}`);
      throw new Error(`${p.name}: /readyz never showed ${what} within ${timeoutMs} ms; last answers:\n${last.join("\n")}\n${transcript(p)}`);
    }
    await sleep(POLL_MS);
  }
}

const isReady = (probe: Probe) => probe.status === 200;
const lacks = (what: Missing) => (probe: Probe) => probe.status === 503 && probe.body.phase === "running" && probe.body.missing.includes(what);

/** A numeric sample from `/metrics` (no labels), or undefined. */
async function metric(base: string, name: string): Promise<number | undefined> {
  const answer = await get(`${base}/metrics`);
  const line = answer?.text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A loopback port nothing listens on right now (the dev gateway binds it later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A dev gateway on `port`, closed after the test; retries briefly if the port is not free again yet. */
async function startGateway(port: number, token: string): Promise<DevGateway> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const gateway = await DevGateway.start({ port, token });
      gateways.push(gateway);
      return gateway;
    } catch (err) {
      if (attempt >= 10) throw err;
      await sleep(100 * attempt);
    }
  }
}

/** The scripted agent in a scratch dir, its events file, and a state dir. */
function agentSections(name: string): { agent: Record<string, unknown>; pool: Record<string, unknown>; events: () => string[] } {
  const work = scratch();
  cleanups.push(() => work.cleanup());
  return {
    agent: { command: process.execPath, args: [scriptedAgentPath], working_dir: work.dir, env: { AGENT_EVENTS_FILE: work.eventsFile } },
    pool: { state_dir: join(work.dir, `state-${name}`), shutdown_grace_secs: 60 },
    events: work.events,
  };
}

describe("turnstream run: /readyz (built CLI, real processes)", () => {
  it(
    "role all: not ready without its gateway, ready once connected, not ready when it goes, draining at once on SIGTERM while a turn finishes",
    async () => {
      const port = await freePort();
      const token = `readyz-token-${process.pid}`;
      const { agent, pool, events } = agentSections("all");
      const p = launch("all", "all", {
        gateway: { url: `ws://127.0.0.1:${port}/ws`, token, allow_all_users: true, allow_all_channels: true },
        agent,
        pool,
      });
      const base = await metricsUrl(p);

      // No gateway listens on the port yet: running, alive, but not ready — only the gateway missing.
      const noGateway = await readyzUntil(p, base, "running without the gateway", lacks("gateway"));
      expect(noGateway.body).toEqual({ status: "not_ready", phase: "running", missing: ["gateway"] });
      const health = await get(`${base}/healthz`);
      expect(health?.status).toBe(200);
      expect(JSON.parse(health?.text ?? "{}")).toMatchObject({ status: "ok" });
      expect(await metric(base, "turnstream_gateway_connected")).toBe(0);

      // The gateway appears on that port: the connector's next attempt (1 s, 2 s … backoff) connects.
      let gateway = await startGateway(port, token);
      const ready = await readyzUntil(p, base, "ready once the gateway is up", isReady);
      expect(ready.body).toEqual({ status: "ready", phase: "running", missing: [] });
      expect(gateway.brokerCount).toBe(1);
      expect(await metric(base, "turnstream_gateway_connected")).toBe(1);

      // The gateway goes away (its socket closed, nothing listening): not ready, the gateway missing.
      await gateway.close();
      gateways.splice(gateways.indexOf(gateway), 1);
      const gone = await readyzUntil(p, base, "not ready once the gateway is gone", lacks("gateway"));
      expect(gone.body).toEqual({ status: "not_ready", phase: "running", missing: ["gateway"] });

      // It comes back on the same port: ready again after the reconnect.
      gateway = await startGateway(port, token);
      const replies: ReplyFrame[] = [];
      gateway.received.subscribe((frame) => {
        if (frame.kind === "reply" && frame.frame.command === undefined) replies.push(frame.frame);
      });
      expect((await readyzUntil(p, base, "ready again after the gateway came back", isReady)).body).toEqual({ status: "ready", phase: "running", missing: [] });
      expect(await eventually(() => gateway.brokerCount === 1, SETTLE_MS)).toBe(true);

      // A turn that takes a while, then SIGTERM once the agent is running it.
      gateway.broadcast(userEvent("slow 6000"));
      const prompted = await eventually(() => events().some((line) => /^prompt \S+ slow$/.test(line)), SETTLE_MS);
      expect(prompted, `the agent never got the prompt; agent events: ${events().join(" | ")}\n${transcript(p)}`).toBe(true);
      p.child.kill("SIGTERM");

      // Probed until the process is gone. The first answers may still predate the signal's handling;
      // from the first "draining" on, every answer must be 503, and never "running" again.
      let firstDraining: { index: number; alive: boolean; replied: boolean } | undefined;
      const watching = (async () => {
        while (p.child.exitCode === null && p.child.signalCode === null) {
          const probe = await readyz(p, base);
          if (probe?.body.phase === "draining" && firstDraining === undefined) {
            firstDraining = { index: p.probes.length - 1, alive: p.child.exitCode === null, replied: replies.some((r) => r.content.text.includes("slow done")) };
          }
          await sleep(POLL_MS);
        }
      })();
      expect(await eventually(() => firstDraining !== undefined, SETTLE_MS), transcript(p)).toBe(true);
      const drainingAt = firstDraining as NonNullable<typeof firstDraining>;
      const draining = p.probes[drainingAt.index] as Probe;
      expect(draining.status).toBe(503);
      expect(draining.body).toEqual({ status: "not_ready", phase: "draining", missing: ["broker"] });
      expect(drainingAt.alive).toBe(true);
      // The turn sleeps 6 s after its prompt; the process reports draining well before it replies.
      expect(drainingAt.replied).toBe(false);

      // The running turn finishes within the grace, its reply reaches the gateway, and the process exits 0.
      const exit = await p.exited;
      await watching;
      expect(exit, transcript(p)).toEqual({ code: 0, signal: null });
      expect(replies.some((r) => r.content.text.includes("slow done")), JSON.stringify(replies)).toBe(true);
      expect(p.logged("broker stopped")).toEqual([expect.objectContaining({ finished: 1, abandoned: 0 })]);
      expect(p.logged("shutdown grace expired")).toEqual([]);
      const afterDraining = p.probes.slice(drainingAt.index);
      for (const probe of afterDraining) {
        expect(probe.status).toBe(503);
        expect(["draining", "stopped"]).toContain(probe.body.phase);
      }
      // It went on answering while the turn ran (the listener closes only once the broker stopped).
      expect(afterDraining.length).toBeGreaterThan(1);

      // Nothing left behind: the agent process the turn ran in is gone too.
      const agentPids = events()
        .filter((line) => line.startsWith("start "))
        .map((line) => Number(line.split(" ")[1]));
      expect(agentPids).toHaveLength(1);
      for (const pid of agentPids) expect(await eventually(() => !isRunning(pid), 10_000)).toBe(true);
    },
    TEST_TIMEOUT,
  );
});

const nats = natsServerAvailable();

describe.skipIf(!nats)("turnstream run --role worker|edge on NATS: /readyz (built CLI, real nats-server)", () => {
  const LEASE_TTL_SECS = 3;
  const PARTITIONS = 4;
  const FAKE = "aaa-fake-holder";
  let server: NatsServer;
  let prefixes = 0;

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The test as a worker: holds every partition's lease and renews them and its presence until told to stop. */
  async function holdEverything(kv: KV): Promise<{ stopPresence(): Promise<void>; release(): Promise<void> }> {
    let presence = true;
    let leases = true;
    const renew = async () => {
      if (presence) await kv.put(presenceKey(FAKE), FAKE);
      if (leases) await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => kv.put(partitionKey(p), FAKE)));
    };
    await renew();
    // Renewed every 500 ms against a 3 s TTL: the leases never lapse while the test holds them.
    let renewing = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(renew).catch(() => undefined);
    }, 500);
    const stopTimer = async () => {
      clearInterval(timer);
      await renewing;
    };
    cleanups.push(stopTimer);
    return {
      async stopPresence() {
        presence = false;
        await renewing;
        await kv.delete(presenceKey(FAKE));
      },
      async release() {
        leases = false;
        await stopTimer();
        await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => kv.delete(partitionKey(p))));
      },
    };
  }

  /** The revision of a key, or undefined while it is absent. */
  async function revision(kv: KV, key: string): Promise<number | undefined> {
    const entry = await kv.get(key);
    return entry?.operation === "PUT" ? entry.revision : undefined;
  }

  /** Resolves once `key` was written again after now (a lease tick of its worker), or throws. */
  async function rewritten(kv: KV, key: string, what: string): Promise<void> {
    const before = await revision(kv, key);
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      const now = await revision(kv, key);
      if (now !== undefined && (before === undefined || now > before)) return;
      if (Date.now() > deadline) throw new Error(`${key} was not written again within ${SETTLE_MS} ms (${what})`);
      await sleep(POLL_MS);
    }
  }

  it(
    "a worker is not ready without its share of the partitions and ready once it holds it; an edge is ready without any",
    async () => {
      const prefix = `readyz${process.pid}_${++prefixes}`;
      const bus = { url: server.url, prefix, partitions: PARTITIONS, lease_ttl_secs: LEASE_TTL_SECS };
      const nc: NatsConnection = await connect({ servers: server.url });
      cleanups.push(() => nc.close());
      // The bucket as the worker opens it (same TTL, or its start-up would refuse the bucket).
      const kv = await openBucket(nc, subjects(prefix).buckets.leases, { ttlMs: LEASE_TTL_SECS * 1000 });
      const holder = await holdEverything(kv);

      const { agent, pool, events } = agentSections("worker");
      const worker = launch("worker", "worker", { bus, agent, pool });
      const workerBase = await metricsUrl(worker);
      const joined = await Promise.race([eventually(() => worker.logged("worker joined").length > 0, SETTLE_MS), worker.exited.then(() => false)]);
      expect(joined, transcript(worker)).toBe(true);
      const workerId = String(worker.logged("worker joined")[0]?.workerId);
      const workerPresence = presenceKey(workerId);

      // Its presence is announced, then two more lease ticks (each renews the presence first, then
      // reads the table and tries to acquire): by then it has planned with both workers present —
      // a share of 2 of 4 — and found every partition held by the test.
      await rewritten(kv, workerPresence, "the worker announced itself");
      await rewritten(kv, workerPresence, "first rebalance");
      await rewritten(kv, workerPresence, "second rebalance");
      const starved = await readyz(worker, workerBase);
      expect(starved, transcript(worker)).toEqual({ status: 503, body: { status: "not_ready", phase: "running", missing: ["partitions"] } });
      expect(await metric(workerBase, "turnstream_partitions_owned")).toBe(0);
      expect(worker.logged("partition lease acquired")).toEqual([]);
      expect((await kv.get(partitionKey(0)))?.string()).toBe(FAKE);

      // An edge on the same bus, with its gateway: ready, though the partitions are all taken.
      const gateway = await startGateway(0, `edge-token-${process.pid}`);
      const edge = launch("edge", "edge", {
        bus,
        gateway: { url: gateway.url, token: gateway.token, allow_all_users: true, allow_all_channels: true },
      });
      const edgeBase = await metricsUrl(edge);
      const edgeReady = await readyzUntil(edge, edgeBase, "the edge ready", isReady);
      expect(edgeReady.body).toEqual({ status: "ready", phase: "running", missing: [] });
      expect(gateway.brokerCount).toBe(1);

      // Still starved while the test holds the leases (polled a while, never ready).
      for (let i = 0; i < 10; i += 1) {
        const probe = await readyz(worker, workerBase);
        expect(probe?.body).toEqual({ status: "not_ready", phase: "running", missing: ["partitions"] });
        await sleep(POLL_MS);
      }

      // The test leaves: its presence first — once the worker has ticked since, it plans alone (4 of
      // 4) — then its leases. The worker acquires all four and is ready.
      await holder.stopPresence();
      await rewritten(kv, workerPresence, "a tick after the fake worker left");
      await holder.release();
      const owning = await readyzUntil(worker, workerBase, "the worker ready once the leases are free", isReady);
      expect(owning.body).toEqual({ status: "ready", phase: "running", missing: [] });
      expect(await metric(workerBase, "turnstream_partitions_owned")).toBe(PARTITIONS);
      // The log lines come over a pipe that the HTTP answers can overtake on a loaded machine.
      const acquired = () => new Set(worker.logged("partition lease acquired").map((line) => line.partition));
      await eventually(() => acquired().size === PARTITIONS, SETTLE_MS);
      expect(acquired(), transcript(worker)).toEqual(new Set([0, 1, 2, 3]));
      for (let p = 0; p < PARTITIONS; p += 1) expect((await kv.get(partitionKey(p)))?.string()).toBe(workerId);

      // Neither side ever named what its role does not have: no gateway for the worker, no partitions for the edge.
      expect(worker.probes.every((probe) => !probe.body.missing.includes("gateway") && !probe.body.missing.includes("bus"))).toBe(true);
      expect(edge.probes.every((probe) => !probe.body.missing.includes("partitions"))).toBe(true);
      expect(edge.probes.length).toBeGreaterThan(0);

      // SIGTERM both: each exits 0, the worker gives its leases back, and no agent was ever started.
      worker.child.kill("SIGTERM");
      edge.child.kill("SIGTERM");
      expect(await worker.exited, transcript(worker)).toEqual({ code: 0, signal: null });
      expect(await edge.exited, transcript(edge)).toEqual({ code: 0, signal: null });
      expect(worker.logged("partition lease released")).toHaveLength(PARTITIONS);
      expect(worker.logged("partition lease tick failed")).toEqual([]);
      expect(events().filter((line) => line.startsWith("start "))).toEqual([]);
      expect(await revision(kv, workerPresence)).toBeUndefined();
    },
    TEST_TIMEOUT,
  );
});
