import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

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
  /** `nats://127.0.0.1:<port>`; the same after `restart()`. */
  readonly url: string;
  readonly port: number;
  readonly version: string;
  readonly storeDir: string;
  /** The running server process (a new one after `restart()`). */
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its storage. */
  stop(): Promise<void>;
  /**
   * Stops the server and starts it again on the same port with the same arguments and JetStream
   * store (streams, consumers and KV survive), resolving once it accepts clients again. With
   * `downMs`, the server stays down that long first (an outage rather than a blip). With `signal:
   * "SIGKILL"` it is killed outright (kill -9: nothing flushed, no client told).
   */
  restart(options?: { downMs?: number; signal?: "SIGTERM" | "SIGKILL" }): Promise<void>;
  /** Freezes the server (SIGSTOP) for `ms`, then lets it go on (SIGCONT): connections stay open, nothing is answered meanwhile. */
  pause(ms: number): Promise<void>;
}

export interface NatsServerOptions {
  readonly jetstream?: boolean;
  readonly readyTimeoutMs?: number;
  /** Extra nats-server arguments, e.g. `["--auth", "s3cret"]`. */
  readonly args?: readonly string[];
}

/**
 * Starts a private nats-server on a free loopback port (the server picks it: no probe-then-bind
 * race) with JetStream in a fresh temporary directory, and resolves once it accepts clients.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const { jetstream = true, readyTimeoutMs = 15_000, args = [] } = options;
  const storeDir = mkdtempSync(join(tmpdir(), "turnstream-nats-"));
  const argsFor = (port: number) => ["-a", "127.0.0.1", "-p", String(port), ...(jetstream ? ["-js", "-sd", storeDir] : []), ...args];
  let current: RunningServer;
  try {
    current = await runServer(argsFor(-1), readyTimeoutMs);
  } catch (err) {
    rmSync(storeDir, { recursive: true, force: true });
    throw err;
  }
  const { port, version } = current;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    version,
    storeDir,
    get process() {
      return current.child;
    },
    async stop() {
      await current.kill();
      rmSync(storeDir, { recursive: true, force: true });
    },
    async restart({ downMs = 0, signal = "SIGTERM" } = {}) {
      await current.kill(signal);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      // The old listener's port is normally free at once; give a slow machine a few tries.
      for (let attempt = 1; ; attempt += 1) {
        try {
          current = await runServer(argsFor(port), readyTimeoutMs);
          return;
        } catch (err) {
          if (attempt >= 5) throw err;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    },
    async pause(ms) {
      current.child.kill("SIGSTOP");
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        current.child.kill("SIGCONT");
      }
    },
  };
}

interface RunningServer {
  readonly child: ChildProcess;
  readonly port: number;
  readonly version: string;
  /** SIGTERM (SIGKILL after 5 s), or SIGKILL at once; resolves once the process is gone. */
  kill(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

async function runServer(args: readonly string[], readyTimeoutMs: number): Promise<RunningServer> {
  const child = spawn(natsServerBinary, args, { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async (signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT"); // a paused server cannot act on SIGTERM
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
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
    return { child, port, version, kill };
  } catch (err) {
    await kill();
    throw err;
  }
}

/** A private nats-server for the enclosing describe block: started before its tests, stopped after them. */
export function useNatsServer(): { readonly server: NatsServer } {
  let server: NatsServer | undefined;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server(): NatsServer {
      if (server === undefined) throw new Error("the nats-server starts in beforeAll: use it inside a test");
      return server;
    },
  };
}
