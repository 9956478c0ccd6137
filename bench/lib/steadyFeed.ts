import type { DevGateway } from "../../src/devgateway/devGateway.js";
import { gatewayFrame } from "./gatewayFrames.js";
import type { GatewayReport, SteadyFeedCommand, SteadyProgress, SteadyResult } from "./gatewayProtocol.js";
import { distribution, round } from "./stats.js";

/** How often the feed tops up to the number of events due by now. */
const TICK_MS = 20;
const PROGRESS_MS = 1_000;
const ANSWER = /message (\d+):/;

/**
 * The gateway process's side of a steady feed (see `SteadyFeedCommand`): runs in the gateway's
 * process, so building frames, matching answers and keeping latencies cost the broker nothing.
 * Sends on a schedule computed from the start (a late timer catches up, the rate does not
 * drift); every table is allocated up front.
 */
export class SteadyFeed {
  readonly #command: SteadyFeedCommand;
  readonly #gateway: DevGateway;
  readonly #report: (report: GatewayReport) => void;
  readonly #done: () => void;
  /** Monotonic ns at which event `from + k` left, as a double (exact to well under a µs). */
  readonly #sentAt: Float64Array;
  readonly #answered: Uint8Array;
  readonly #latencies: Float64Array;
  #sent = 0;
  #answeredCount = 0;
  #duplicates = 0;
  #unmatched = 0;
  #startedNs = 0n;
  #lastSentNs = 0n;
  #ticker: NodeJS.Timeout | undefined;
  #progress: NodeJS.Timeout | undefined;
  #drain: NodeJS.Timeout | undefined;
  #finished = false;

  constructor(gateway: DevGateway, command: SteadyFeedCommand, report: (report: GatewayReport) => void, done: () => void) {
    this.#gateway = gateway;
    this.#command = command;
    this.#report = report;
    this.#done = done;
    this.#sentAt = new Float64Array(command.count);
    this.#answered = new Uint8Array(command.count);
    this.#latencies = new Float64Array(command.count);
  }

  start(): void {
    this.#startedNs = process.hrtime.bigint();
    this.#ticker = setInterval(() => this.#topUp(), TICK_MS);
    this.#progress = setInterval(() => this.#report({ kind: "steadyProgress", ...this.#counts() }), PROGRESS_MS);
    this.#topUp();
  }

  /** A reply frame's text arrived (already acked by the gateway). */
  reply(text: string): void {
    const match = ANSWER.exec(text);
    const k = match === null ? -1 : Number(match[1]) - this.#command.from;
    if (k < 0 || k >= this.#sent) {
      this.#unmatched += 1;
      return;
    }
    if (this.#answered[k] === 1) {
      this.#duplicates += 1;
      return;
    }
    this.#answered[k] = 1;
    this.#latencies[this.#answeredCount++] = (Number(process.hrtime.bigint()) - (this.#sentAt[k] as number)) / 1e6;
    if (this.#answeredCount === this.#command.count && this.#sent === this.#command.count) this.#finish();
  }

  #counts(): SteadyProgress {
    return { sent: this.#sent, answered: this.#answeredCount };
  }

  #topUp(): void {
    const { count, ratePerSecond, from, mix } = this.#command;
    const elapsedMs = Number(process.hrtime.bigint() - this.#startedNs) / 1e6;
    const due = Math.min(count, Math.floor((elapsedMs * ratePerSecond) / 1000) + 1);
    while (this.#sent < due) {
      const frame = gatewayFrame(from + this.#sent, mix);
      const at = process.hrtime.bigint();
      this.#sentAt[this.#sent] = Number(at);
      this.#gateway.broadcast(frame);
      this.#lastSentNs = at;
      this.#sent += 1;
    }
    if (this.#sent < count) return;
    clearInterval(this.#ticker);
    if (this.#answeredCount === count) this.#finish();
    else this.#drain ??= setTimeout(() => this.#finish(), this.#command.drainMs);
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearInterval(this.#ticker);
    clearInterval(this.#progress);
    clearTimeout(this.#drain);
    const seconds = Number(this.#lastSentNs - this.#startedNs) / 1e9;
    const result: SteadyResult = {
      ...this.#counts(),
      duplicates: this.#duplicates,
      unmatched: this.#unmatched,
      sentPerSecond: round(seconds > 0 ? (this.#sent - 1) / seconds : 0, 1),
      latencyMs: distribution(Array.from(this.#latencies.subarray(0, this.#answeredCount)), 2),
    };
    this.#done();
    this.#report({ kind: "steadyDone", ...result });
  }
}
