import { firstValueFrom, map, race, Subject, timer, type Observable, type Subscription } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { Bus } from "../bus/bus.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import type { Send } from "../pipeline/send.js";
import { subjects, type Subjects } from "../wire/index.js";
import type { Edge } from "../edge/edge.js";
import { nativePlatforms } from "../platforms/nativePlatforms.js";
import type { Worker } from "../worker/worker.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import { LevelsWritten } from "../log/levelsWritten.js";
import type { MetricsServer } from "../metrics/metricsServer.js";
import type { Readiness } from "../metrics/readiness.js";
import { BrokerStoppedError } from "./errors.js";
import type { BrokerParts, QueuedEvent, Role, StopResult } from "./brokerParts.js";
import type { SettledTurn } from "../turn/turn.js";
import { brokerMetricsServer } from "./brokerMetricsServer.js";
import { brokerPhase, brokerReadiness, type BrokerLifecycle } from "./brokerReadiness.js";
import { brokerSender } from "./brokerSender.js";
import { startEdgeHalf } from "./edgeHalf.js";
import { EventIntake } from "./eventIntake.js";
import { rateLimitShaper } from "./rateLimitShaper.js";
import { workerHalf } from "./workerHalf.js";

export type { BrokerParts, QueuedEvent, Role, StopResult } from "./brokerParts.js";
export type { SettledTurn } from "../turn/turn.js";

/**
 * The broker's wiring: the edge half (`edge/edge.ts`, one per platform port) queues inbound
 * events on the turn stream, the worker half (`worker/worker.ts`) consumes it, runs one turn at a
 * time per session key and acks each event after its turn's delivery finished. Build one with `createBroker`.
 */
export class Broker {
  readonly config: Config;
  readonly bus: Bus;
  readonly logger: Logger;
  readonly role: Role;
  readonly #parts: BrokerParts;
  readonly #subjects: Subjects;
  readonly #send: Send;
  readonly #worker: Worker | undefined;
  readonly #instruments: Instruments;
  /** What the logger writes, for the sender's debug line and the worker's turns: fields are built only for a line that is written. */
  readonly #levels: LevelsWritten;
  /** `/metrics`, `/healthz`, `/readyz` on `[metrics] listen`, when `[metrics]` is enabled. */
  readonly #metricsServer: MetricsServer | undefined;
  /** An edge runs no turns: its `settledTurns` only completes, when it stops. */
  readonly #noTurns = new Subject<SettledTurn>();
  /** Every turn this worker finished, as it finishes (after its delivery and ack). */
  readonly settledTurns: Observable<SettledTurn>;
  #state: BrokerLifecycle = "created";
  #consuming: Subscription | undefined;
  #edges: readonly Edge[] = [];
  #stopping: Promise<StopResult> | undefined;
  /** Where `submit` and the edge queue events for their turns. */
  readonly #intake: EventIntake;

  constructor(parts: BrokerParts) {
    this.#parts = parts;
    this.config = parts.config;
    this.bus = parts.bus;
    this.logger = parts.logger;
    this.role = parts.role;
    this.#subjects = subjects(parts.config.bus.prefix, { native: [...nativePlatforms(parts.config).keys()] });
    this.#instruments = parts.metrics ?? noInstruments;
    this.#levels = new LevelsWritten(parts.logger);
    // An edge sends too (the trust echo): through the same limits, the per-bot one from the shared pool.
    const shaper = rateLimitShaper(parts, this.#instruments, () => this.#worker?.ownedPartitions ?? 0);
    this.#send = brokerSender(parts, { subjects: this.#subjects, instruments: this.#instruments, levels: this.#levels, shaper });
    this.#worker = workerHalf(parts, {
      subjects: this.#subjects,
      levels: this.#levels,
      send: this.#send,
      accepting: () => this.#state === "running",
      instruments: this.#instruments,
    });
    this.settledTurns = this.#worker?.settledTurns ?? this.#noTurns.asObservable();
    this.#intake = new EventIntake({
      pipeline: parts.pipeline,
      bus: parts.bus,
      subjects: this.#subjects,
      logger: parts.logger,
      instruments: this.#instruments,
      partitions: parts.config.bus.partitions,
      running: () => this.#state === "running",
    });
    this.#metricsServer = brokerMetricsServer(parts, this.#worker, () => this.readiness());
  }

  /**
   * Whether this process can do its role's work now (what `/readyz` answers): running and not
   * draining, its bus connected, an edge's platform ports connected, a worker holding its share of the
   * partitions (all of them on the embedded bus).
   */
  readiness(): Readiness {
    return brokerReadiness(brokerPhase(this.#state, this.#stopping !== undefined), this.#parts, this.#worker);
  }

  /** The metrics listener's address (`http://host:port`), once started with `[metrics]` enabled. */
  get metricsUrl(): string | undefined {
    return this.#metricsServer?.url;
  }

  /** Starts consuming (worker role) and logs `broker ready`. */
  async start(): Promise<void> {
    if (this.#state !== "created") throw new Error(`broker cannot start when ${this.#state}`);
    try {
      // Listening first: a probe sees "starting" while the reply tool starts, saved sessions are preloaded and leases are joined.
      await this.#metricsServer?.start();
      await this.#parts.onStart?.();
    } catch (err) {
      // Nothing of a broker that could not start is left running (agents a preload started, sockets).
      await this.stop({ graceMs: 0 });
      throw err;
    }
    // Running before consuming: the embedded bus hands a worker what its journal brought back as
    // it subscribes, and a turn offered before the broker accepts turns would be dropped unacked.
    this.#state = "running";
    this.#consuming = this.#worker?.run().subscribe();
    this.#edges = startEdgeHalf(this.#parts, { subjects: this.#subjects, instruments: this.#instruments, notices: this.#send, intake: this.#intake });
    try {
      // Sources of their own (cron, webhooks) queue through `submit`, which takes events once running.
      for (const source of this.#parts.sources ?? []) await source.start((event) => this.submit(event));
    } catch (err) {
      await this.stop({ graceMs: 0 });
      throw err;
    }
    this.logger.info({ role: this.role, bus: this.bus.shared ? "external" : "memory", partitions: this.config.bus.partitions }, "broker ready");
  }

  /**
   * Queues an event for its turn, as an edge does for every event of its port that passed the
   * ingress checks: runs the `afterIngress` stage, then persists each resulting event on its
   * partition with message id `platform:event_id`. Resolves with what was queued (nothing when a
   * stage dropped the event).
   */
  submit(event: GatewayEvent): Promise<readonly QueuedEvent[]> {
    if (this.#state !== "running") return Promise.reject(new BrokerStoppedError());
    if (this.role === "worker") return Promise.reject(new Error("a worker-only broker does not take events; submit to an edge"));
    return new Promise((resolve, reject) => this.#intake.queue(event, sessionKey(event), (result) => (result.ok ? resolve(result.queued) : reject(result.err))));
  }

  /**
   * Graceful stop: takes no new events or turns, lets running turns finish for up to `graceMs`
   * (default `[pool] shutdown_grace_secs`), cancels the rest (their events stay unacked, so a
   * durable bus redelivers them), then closes the bus if the broker created it.
   */
  stop(options: { graceMs?: number } = {}): Promise<StopResult> {
    this.#stopping ??= this.#stop(options.graceMs ?? this.config.pool.shutdown_grace_secs * 1000);
    return this.#stopping;
  }

  async #stop(graceMs: number): Promise<StopResult> {
    // No new firings or deliveries; what they already handed over is queued first.
    await Promise.all((this.#parts.sources ?? []).map((source) => source.close()));
    // Debounced messages the edge still holds are queued before the broker refuses new events.
    if (this.#edges.length > 0) await Promise.race([Promise.all(this.#edges.map((edge) => edge.stopIntake())), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    const worker = this.#worker;
    const running = worker?.running ?? 0;
    this.#state = "stopping";
    this.logger.info({ inFlight: running, graceMs }, "broker stopping");
    const drained =
      worker === undefined ? true : await firstValueFrom(race(worker.whenIdle.pipe(map(() => true)), timer(graceMs, this.bus.scheduler).pipe(map(() => false))));
    const abandoned = drained ? 0 : (worker?.running ?? 0);
    if (!drained) this.logger.warn({ reason: "grace_expired", abandoned, graceMs }, "shutdown grace expired");
    this.#consuming?.unsubscribe();
    await this.#parts.onStopping?.();
    for (const edge of this.#edges) edge.responder.unsubscribe();
    await Promise.all((this.#parts.ports ?? []).map((port) => port.close()));
    await this.#parts.onStopped?.();
    if (this.#parts.ownsBus) await this.bus.close();
    this.#state = "stopped";
    await this.#metricsServer?.close();
    worker?.close();
    this.#levels.close();
    this.#noTurns.complete();
    const result = { finished: running - abandoned, abandoned };
    this.logger.info(result, "broker stopped");
    return result;
  }

  /**
   * Lets `partition`'s running turns finish and starts no new ones there; resolves when none runs.
   * Its lease may then go to another worker (messages still held are handed back when the
   * partition leaves the owned set).
   */
  drainPartition(partition: number): Promise<void> {
    return this.#worker?.drainPartition(partition) ?? Promise.resolve();
  }
}
