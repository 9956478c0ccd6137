import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's nats-server (2.9.10 on the reference machine); override with NATS_SERVER_BIN. */
export const natsServerBinary = process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server";

export function natsServerAvailable(): boolean {
  return existsSync(natsServerBinary);
}

export interface BenchNatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly version: string;
  readonly process: ChildProcess;
  /** The server's CPU time so far (user + system, every thread), µs; undefined where /proc cannot say. */
  cpuMicros(): number | undefined;
  /** SIGTERM (SIGKILL after 5 s), then removes the JetStream directory. */
  stop(): Promise<void>;
}

/**
 * A private nats-server on a free loopback port (the server picks it) with JetStream in a fresh
 * temporary directory; resolves once it accepts clients. A trimmed copy of the test suite's starter
 * (the bench build does not compile `test/`).
 */
export async function startNatsServer(readyTimeoutMs = 15_000): Promise<BenchNatsServer> {
  const storeDir = mkdtempSync(join(tmpdir(), "turnstream-bench-nats-"));
  const child = spawn(natsServerBinary, ["-a", "127.0.0.1", "-p", "-1", "-js", "-sd", storeDir], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A benchmark that dies without stopping its server takes it along.
  const orphaned = () => child.kill("SIGKILL");
  process.once("exit", orphaned);
  const stop = async (): Promise<void> => {
    process.off("exit", orphaned);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(storeDir, { recursive: true, force: true });
  };
  try {
    const { port, version } = await new Promise<{ port: number; version: string }>((resolve, reject) => {
      let log = "";
      const timer = setTimeout(() => reject(new Error(`nats-server not ready after ${readyTimeoutMs} ms:\n${log}`)), readyTimeoutMs);
      child.once("error", (err) => (clearTimeout(timer), reject(err)));
      child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`nats-server exited with ${code}:\n${log}`))));
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        log += chunk;
        const listening = /Listening for client connections on [^\s]+:(\d+)/.exec(log);
        if (listening?.[1] !== undefined && /Server is ready/.test(log)) {
          clearTimeout(timer);
          resolve({ port: Number(listening[1]), version: /Version:\s+(\S+)/.exec(log)?.[1] ?? "" });
        }
      });
    });
    child.stderr?.removeAllListeners("data");
    child.stderr?.resume();
    return { url: `nats://127.0.0.1:${port}`, version, process: child, cpuMicros: () => processCpuMicros(child.pid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux build in use). */
const USER_HZ = 100;

/** CPU time of another process from /proc (utime + stime, fields 14 and 15), µs; undefined off Linux or once it exited. */
function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The command name (field 2) may hold spaces; the fields after it start past its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / USER_HZ;
  } catch {
    return undefined;
  }
}
