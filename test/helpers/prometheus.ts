import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's prometheus (2.42 on the reference machines); override with PROMETHEUS_BIN. */
export const prometheusBinary = process.env.PROMETHEUS_BIN ?? "/usr/bin/prometheus";

/**
 * Whether suites that scrape with a real Prometheus server can run here. In CI a missing binary
 * fails the run instead of skipping: a green CI must mean the scrape suites ran.
 */
export function prometheusAvailable(): boolean {
  if (existsSync(prometheusBinary)) return true;
  const message = `prometheus not found at ${prometheusBinary}: Prometheus scrape suites cannot run (install it: apt-get install --no-install-recommends prometheus)`;
  if (process.env.CI === "true") throw new Error(message);
  console.warn(`\n!!! ${message}; SKIPPING PROMETHEUS SUITES (this fails in CI) !!!\n`);
  return false;
}

/** Debian's promtool, from the same prometheus package; override with PROMTOOL_BIN. */
export const promtoolBinary = process.env.PROMTOOL_BIN ?? "/usr/bin/promtool";

/**
 * Whether suites that check Prometheus files with promtool can run here: the same rule as
 * `prometheusAvailable` (a loud skip locally, a failure under CI=true).
 */
export function promtoolAvailable(): boolean {
  if (existsSync(promtoolBinary)) return true;
  const message = `promtool not found at ${promtoolBinary}: the Prometheus config and rules in the docs cannot be checked (install it: apt-get install --no-install-recommends prometheus)`;
  if (process.env.CI === "true") throw new Error(message);
  console.warn(`\n!!! ${message}; SKIPPING PROMTOOL CHECKS (this fails in CI) !!!\n`);
  return false;
}

/** One series of an instant-vector query result. */
export interface PrometheusSample {
  readonly metric: Record<string, string>;
  /** The sample value; `+Inf`, `-Inf` and `NaN` map to `Infinity`, `-Infinity` and `NaN`. */
  readonly value: number;
}

/** One active scrape target, as `/api/v1/targets` reports it. */
export interface PrometheusTarget {
  readonly scrapeUrl: string;
  /** `"up"`, `"down"`, or `"unknown"` before the first scrape. */
  readonly health: string;
  /** The last scrape's error, `""` when it succeeded. */
  readonly lastError: string;
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>`: the UI and HTTP API. */
  readonly url: string;
  readonly port: number;
  /** The running server process. */
  readonly process: ChildProcess;
  /** Evaluates `expr` now (`/api/v1/query`); throws unless Prometheus answers `success` with an instant vector. */
  query(expr: string): Promise<PrometheusSample[]>;
  /**
   * Polls `query(expr)` every 250 ms until `predicate` holds, resolving with that result; rejects
   * after `timeoutMs` (default 20 s) with the last result in the message. Query errors (a bad
   * expression) reject at once.
   */
  waitFor(expr: string, predicate: (result: PrometheusSample[]) => boolean, timeoutMs?: number): Promise<PrometheusSample[]>;
  /** The active scrape targets and how their last scrape went. */
  targets(): Promise<PrometheusTarget[]>;
  /** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its config and storage. Idempotent. */
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** `host:port` targets for the single `turnstream` scrape job, e.g. `"127.0.0.1:9464"`. */
  readonly targets: readonly string[];
  /** Scrape and rule-evaluation interval (and scrape timeout); default 1000 ms. */
  readonly scrapeIntervalMs?: number;
  /** Default `/metrics`. */
  readonly metricsPath?: string;
  /** How long to wait for `/-/ready`; default 20 s. */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts a private Prometheus server on a free loopback port, with its config and TSDB in a fresh
 * temporary directory, scraping `targets` as job `turnstream`; resolves once `/-/ready` answers
 * 200. Nothing leaves the machine: no remote write, no Alertmanager, no rules.
 *
 * Ready is not scraped: Prometheus 2.42 hands targets to its scrape loop in 5 s batches (fixed in
 * its discovery manager, no flag), so the first scrape lands ~5–6 s after `startPrometheus`
 * resolves, and `targets()` is `[]` until then. Wait with `waitFor`, not a fixed sleep.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const { targets, scrapeIntervalMs = 1_000, metricsPath = "/metrics", readyTimeoutMs = 20_000 } = options;
  if (!Number.isInteger(scrapeIntervalMs) || scrapeIntervalMs <= 0) {
    throw new Error(`scrapeIntervalMs must be a positive integer, got ${scrapeIntervalMs}`);
  }
  const dir = mkdtempSync(join(tmpdir(), "turnstream-prometheus-"));
  try {
    const configFile = join(dir, "prometheus.yml");
    writeFileSync(configFile, configYaml(targets, promDuration(scrapeIntervalMs), metricsPath));
    // The free port is probed, then bound by Prometheus: another process may take it in between.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      try {
        const running = await runServer(configFile, join(dir, "data"), port, readyTimeoutMs);
        return serverApi(running, port, dir);
      } catch (err) {
        if (!(err instanceof AddressInUseError) || attempt >= 5) throw err;
      }
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function serverApi(running: RunningServer, port: number, dir: string): PrometheusServer {
  const url = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;

  const apiGet = async (path: string, what: string): Promise<unknown> => {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
    const text = await response.text();
    let body: { status?: unknown; data?: unknown; errorType?: unknown; error?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`Prometheus ${what}: HTTP ${response.status}, not JSON: ${text.slice(0, 500)}`);
    }
    if (body.status !== "success") {
      throw new Error(`Prometheus ${what}: HTTP ${response.status}, status ${JSON.stringify(body.status)}, ${String(body.errorType)}: ${String(body.error)}`);
    }
    return body.data;
  };

  const query = async (expr: string): Promise<PrometheusSample[]> => {
    const data = (await apiGet(`/api/v1/query?query=${encodeURIComponent(expr)}`, `query ${JSON.stringify(expr)}`)) as {
      resultType?: unknown;
      result?: unknown;
    };
    if (data.resultType !== "vector" || !Array.isArray(data.result)) {
      throw new Error(`Prometheus query ${JSON.stringify(expr)}: expected an instant vector, got resultType ${JSON.stringify(data.resultType)}`);
    }
    return (data.result as Array<{ metric: Record<string, string>; value: [number, string] }>).map(({ metric, value }) => ({
      metric,
      value: sampleValue(value[1]),
    }));
  };

  return {
    url,
    port,
    process: running.child,
    query,
    async waitFor(expr, predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const result = await query(expr);
        if (predicate(result)) return result;
        if (Date.now() >= deadline) {
          throw new Error(`Prometheus: ${JSON.stringify(expr)} did not satisfy the predicate within ${timeoutMs} ms; last result: ${JSON.stringify(result)}`);
        }
        await sleep(250);
      }
    },
    async targets() {
      const data = (await apiGet("/api/v1/targets?state=active", "targets")) as {
        activeTargets?: Array<{ scrapeUrl: string; health: string; lastError: string }>;
      };
      return (data.activeTargets ?? []).map(({ scrapeUrl, health, lastError }) => ({ scrapeUrl, health, lastError }));
    },
    stop() {
      stopped ??= (async () => {
        await running.kill();
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/** Prometheus's text for a sample value: a float, or `+Inf`, `-Inf`, `NaN` (which `Number()` alone misreads). */
function sampleValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

/** 1000 → "1s", 1500 → "1500ms": both parse as Prometheus durations. */
function promDuration(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

function configYaml(targets: readonly string[], interval: string, metricsPath: string): string {
  // JSON strings are valid YAML double-quoted scalars.
  const q = (s: string) => JSON.stringify(s);
  return [
    "global:",
    `  scrape_interval: ${interval}`,
    `  scrape_timeout: ${interval}`,
    `  evaluation_interval: ${interval}`,
    "scrape_configs:",
    "  - job_name: turnstream",
    `    metrics_path: ${q(metricsPath)}`,
    "    static_configs:",
    `      - targets: [${targets.map(q).join(", ")}]`,
    "",
  ].join("\n");
}

/** A port nothing listens on right now (bind port 0, read it, close). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("could not find a free port"))));
    });
  });
}

/** Prometheus exited because its listen port was taken (the probe-then-bind race): try another. */
class AddressInUseError extends Error {}

interface RunningServer {
  readonly child: ChildProcess;
  /** SIGTERM (SIGKILL after 5 s); resolves once the process is gone. */
  kill(): Promise<void>;
}

async function runServer(configFile: string, storageDir: string, port: number, readyTimeoutMs: number): Promise<RunningServer> {
  const child = spawn(
    prometheusBinary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${storageDir}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--storage.tsdb.retention.time=1h",
      "--log.level=warn",
    ],
    { detached: false, stdio: ["ignore", "pipe", "pipe"] },
  );
  const tail: string[] = [];
  const capture = (chunk: string) => {
    tail.push(...chunk.split("\n").filter((line) => line !== ""));
    if (tail.length > 50) tail.splice(0, tail.length - 50);
  };
  child.stdout?.setEncoding("utf8").on("data", capture);
  child.stderr?.setEncoding("utf8").on("data", capture);
  const output = () => (tail.length > 0 ? tail.join("\n") : "(no output)");

  let exitStatus: string | undefined;
  let spawnError: Error | undefined;
  // Settles on exit, or on a failed spawn (ENOENT, EACCES), after which no "exit" ever comes.
  const gone = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exitStatus = signal ?? `code ${code}`;
      resolve();
    });
    child.once("error", (err) => {
      spawnError ??= err;
      if (child.pid === undefined) resolve();
    });
  });
  // If the test process goes away without stop() (a crash, a killed worker), take Prometheus with it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const kill = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await gone;
      clearTimeout(timer);
    }
    process.removeListener("exit", killOnExit);
  };

  try {
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (spawnError !== undefined) throw new Error(`prometheus (${prometheusBinary}) could not start: ${spawnError.message}`);
      if (exitStatus !== undefined) {
        await sleep(50); // let the last output arrive
        const message = `prometheus exited (${exitStatus}) before it was ready:\n${output()}`;
        throw /address already in use/.test(message) ? new AddressInUseError(message) : new Error(message);
      }
      try {
        const response = await fetch(`http://127.0.0.1:${port}/-/ready`, { signal: AbortSignal.timeout(1_000) });
        await response.body?.cancel();
        if (response.status === 200) return { child, kill };
      } catch {
        // not listening yet
      }
      if (Date.now() >= deadline) throw new Error(`prometheus not ready after ${readyTimeoutMs} ms:\n${output()}`);
      await sleep(100);
    }
  } catch (err) {
    await kill();
    throw err;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
