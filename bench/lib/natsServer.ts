import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
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
    return { url: `nats://127.0.0.1:${port}`, version, process: child, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
