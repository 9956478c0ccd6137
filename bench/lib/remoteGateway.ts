import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { GatewayCommand, GatewayReport, SteadyFeedCommand, SteadyProgress, SteadyResult } from "./gatewayProtocol.js";
import type { FrameMix } from "./gatewayFrames.js";

const gatewayScript = fileURLToPath(new URL("../gatewayProcess.js", import.meta.url));

/** A reply frame as the gateway process saw it arrive. */
export interface ArrivedReply {
  readonly channel: string;
  readonly text: string;
  /** Monotonic clock (ns) at arrival, in the gateway process. */
  readonly atNs: bigint;
}

/** The parent's handle on a gateway process (bench/gatewayProcess.ts). */
export class RemoteGateway {
  readonly url: string;
  /** The gateway's token: a broker's `[gateway] token`. */
  readonly token: string;
  /** Every reply that arrived, in order. */
  readonly replies: ArrivedReply[] = [];
  readonly #child: ChildProcess;
  #connections = 0;
  /** The running steady feed's counts, as last reported (once a second). */
  steadyProgress: SteadyProgress = { sent: 0, answered: 0 };
  #waiters: ((report: GatewayReport) => void)[] = [];

  private constructor(child: ChildProcess, url: string, token: string) {
    this.#child = child;
    this.url = url;
    this.token = token;
    child.on("message", (report: GatewayReport) => {
      if (report.kind === "connections") this.#connections = report.count;
      if (report.kind === "reply") this.replies.push({ channel: report.channel, text: report.text, atNs: BigInt(report.atNs) });
      if (report.kind === "steadyProgress") this.steadyProgress = { sent: report.sent, answered: report.answered };
      for (const waiter of this.#waiters) waiter(report);
    });
  }

  static async start(): Promise<RemoteGateway> {
    const child = fork(gatewayScript, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`gateway process exited with ${code}`)));
      child.on("message", (report: GatewayReport) => {
        if (report.kind === "ready") resolve({ url: report.url, token: report.token });
      });
    });
    return new RemoteGateway(child, url, token);
  }

  /** Resolves once `count` brokers are connected. */
  connected(count = 1): Promise<void> {
    if (this.#connections >= count) return Promise.resolve();
    return this.#next((report) => report.kind === "connections" && report.count >= count).then(() => undefined);
  }

  /**
   * Resolves once `count` replies have arrived in all; rejects after `timeoutMs`. Event-driven, not
   * polled: a timer polling in the broker's process would cost it CPU and wake-ups being measured.
   */
  async replyCount(count: number, timeoutMs: number): Promise<void> {
    if (this.replies.length >= count) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.replies.length} of ${count} replies after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.#next(() => this.replies.length >= count), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends one event frame to every connected broker. */
  broadcast(frame: object): void {
    this.#send({ kind: "broadcast", frame });
  }

  /** Broadcasts events `from … from+count-1` as fast as the socket takes them; resolves with when the first and last left. */
  async feed(from: number, count: number, mix: FrameMix): Promise<{ firstSentNs: bigint; lastSentNs: bigint }> {
    const fed = this.#next((report) => report.kind === "fed");
    this.#send({ kind: "feed", from, count, mix });
    const report = await fed;
    if (report.kind !== "fed") throw new Error("unreachable");
    return { firstSentNs: BigInt(report.firstSentNs), lastSentNs: BigInt(report.lastSentNs) };
  }

  /** Runs a steady feed in the gateway process (see `SteadyFeedCommand`); resolves with its result once every event was answered or the drain time ran out. */
  async steady(command: Omit<SteadyFeedCommand, "kind">): Promise<SteadyResult> {
    this.steadyProgress = { sent: 0, answered: 0 };
    const done = this.#next((report) => report.kind === "steadyDone");
    this.#send({ kind: "steady", ...command });
    const report = await done;
    if (report.kind !== "steadyDone") throw new Error("unreachable");
    const { kind: _kind, ...result } = report;
    return result;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#send({ kind: "stop" });
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(timer);
  }

  #send(command: GatewayCommand): void {
    this.#child.send(command);
  }

  #next(match: (report: GatewayReport) => boolean): Promise<GatewayReport> {
    return new Promise((resolve) => {
      const waiter = (report: GatewayReport) => {
        if (!match(report)) return;
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(report);
      };
      this.#waiters.push(waiter);
    });
  }
}
