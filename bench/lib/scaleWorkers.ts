import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WorkerCommand, WorkerReport } from "./scaleProtocol.js";

const workerScript = fileURLToPath(new URL("../scaleWorker.js", import.meta.url));

/** The parent's handle on the scale benchmark's worker processes: summed settled counts, the gate, stop. */
export class ScaleWorkers {
  readonly #children: ChildProcess[] = [];
  readonly #counts = new Map<ChildProcess, { count: number; lastNs: bigint }>();
  #onCount: (() => void) | undefined;

  static async start(count: number, natsUrl: string, prefix: string): Promise<ScaleWorkers> {
    const workers = new ScaleWorkers();
    await Promise.all(Array.from({ length: count }, () => workers.#spawn(natsUrl, prefix)));
    return workers;
  }

  /** Events settled by all workers together. */
  get settled(): number {
    let total = 0;
    for (const { count } of this.#counts.values()) total += count;
    return total;
  }

  /** The monotonic time of the latest settle on any worker. */
  get lastSettledNs(): bigint {
    let last = 0n;
    for (const { lastNs } of this.#counts.values()) if (lastNs > last) last = lastNs;
    return last;
  }

  /** Resolves once the workers settled `target` events in all (event-driven: no timer polls the edge's process); rejects after `timeoutMs`. */
  reach(target: number, timeoutMs: number): Promise<void> {
    if (this.settled >= target) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#onCount = undefined;
        reject(new Error(`${this.settled} of ${target} events settled after ${timeoutMs} ms`));
      }, timeoutMs);
      this.#onCount = () => {
        if (this.settled < target) return;
        clearTimeout(timer);
        this.#onCount = undefined;
        resolve();
      };
    });
  }

  gate(open: boolean): void {
    this.#broadcast({ kind: "gate", open });
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.#children.map(async (child) => {
        if (child.exitCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.send({ kind: "stop" } satisfies WorkerCommand);
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  #broadcast(command: WorkerCommand): void {
    for (const child of this.#children) child.send(command);
  }

  async #spawn(natsUrl: string, prefix: string): Promise<void> {
    const child = fork(workerScript, [], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { ...process.env, BENCH_NATS_URL: natsUrl, BENCH_PREFIX: prefix },
    });
    this.#children.push(child);
    this.#counts.set(child, { count: 0, lastNs: 0n });
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`scale worker exited with ${code} before it was ready`)));
      child.on("message", (report: WorkerReport) => {
        if (report.kind === "ready") resolve();
        if (report.kind !== "settled") return;
        this.#counts.set(child, { count: report.count, lastNs: BigInt(report.lastNs) });
        this.#onCount?.();
      });
    });
  }
}
