import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's nats-server (2.9.10 on the reference machines); override with NATS_SERVER_BIN. */
export const natsServerBinary = process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server";

/**
 * Whether NATS suites can run here. In CI a missing server fails the run instead of skipping:
 * a green CI must mean the NATS suites ran.
 */
export function natsServerAvailable(): boolean {
  if (existsSync(natsServerBinary)) return true;
  const message = `nats-server not found at ${natsServerBinary}: NATS suites cannot run (install it: apt-get install nats-server)`;
  if (process.env.CI === "true") throw new Error(message);
  console.warn(`\n!!! ${message}; SKIPPING NATS SUITES (this fails in CI) !!!\n`);
  return false;
}

export interface NatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly version: string;
  readonly storeDir: string;
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its storage. */
  stop(): Promise<void>;
}

/**
 * Starts a private nats-server on a free loopback port (the server picks it: no probe-then-bind
 * race) with JetStream in a fresh temporary directory, and resolves once it accepts clients.
 */
export async function startNatsServer(options: { jetstream?: boolean; readyTimeoutMs?: number } = {}): Promise<NatsServer> {
  const { jetstream = true, readyTimeoutMs = 15_000 } = options;
  const storeDir = mkdtempSync(join(tmpdir(), "turnstream-nats-"));
  const args = ["-a", "127.0.0.1", "-p", "-1", ...(jetstream ? ["-js", "-sd", storeDir] : [])];
  const child = spawn(natsServerBinary, args, { stdio: ["ignore", "ignore", "pipe"] });

  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
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
      let version = "";
      const timer = setTimeout(() => reject(new Error(`nats-server not ready after ${readyTimeoutMs} ms:\n${log}`)), readyTimeoutMs);
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited with ${code} before it was ready:\n${log}`));
      });
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        log += chunk;
        version ||= /Version:\s+(\S+)/.exec(log)?.[1] ?? "";
        const listening = /Listening for client connections on [^\s]+:(\d+)/.exec(log);
        if (listening?.[1] !== undefined && /Server is ready/.test(log)) {
          clearTimeout(timer);
          resolve({ port: Number(listening[1]), version });
        }
      });
    });
    return { url: `nats://127.0.0.1:${port}`, port, version, storeDir, process: child, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
