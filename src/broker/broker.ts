import { firstValueFrom, map, race, Subject, timer, type Observable, type Subscription } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { Bus } from "../bus/bus.js";
import { busMessageChars } from "../bus/busMessageChars.js";
import { PayloadTooLargeError } from "../bus/errors.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { StageError } from "../pipeline/errors.js";
import { createSender, type Send } from "../pipeline/send.js";
import { subjects, type Subjects } from "../wire/index.js";
import { runEdge, type Edge } from "../gateway/edge.js";
import { allPartitions, Worker } from "../worker/worker.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import { messageKind } from "../metrics/metricLabels.js";
import { LevelsWritten } from "../log/levelsWritten.js";
import { EventLoopHealth } from "../metrics/eventLoopHealth.js";
import { MetricsServer } from "../metrics/metricsServer.js";
import { readiness, type BrokerPhase, type Readiness } from "../metrics/readiness.js";
import { BrokerStoppedError } from "./errors.js";
import { MemoryRateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import { SendShaper } from "../../operators/delivery/flow/sendShaper.js";
import { resolveRateLimits } from "../config/rateLimits.js";
import { FallbackRateBuckets } from "../state/fallbackRateBuckets.js";
import { ShareFirstRateBuckets } from "../state/shareFirstRateBuckets.js";
import type { BrokerParts, QueuedEvent, Role, StopResult } from "./brokerParts.js";
import type { SettledTurn } from "../turn/turn.js";
import { queueEvent, type QueueEventOptions, type QueueOutcome } from "./queueEvent.js";

export type { BrokerParts, QueuedEvent, Role, StopResult } from "./brokerParts.js";
export type { SettledTurn } from "../turn/turn.js";

const sendMarginMs = 5_000;
/** Logged at debug as each attempt of a send leaves a worker for the gateway. */
export const SEND_LEAVING_LOG = "message leaving for the gateway";
/** Further requests for a send nobody answered, on a shared bus. */
const sendRetries = 3;
/** How long queueing keeps retrying an event while the bus is unreachable (a NATS restart, say). */
const queueRetryMs = 30_000;

/** What queueing one event came to: what was queued (nothing when `afterIngress` dropped it), or why it was refused. */
type Queued = { readonly ok: true; readonly queued: readonly QueuedEvent[] } | { readonly ok: false; readonly err: unknown };

/** The stable `event rejected` line for an event `afterIngress` or the bus refused; it counts as dropped. */
function logRejected(logger: Logger, instruments: Instruments, event: GatewayEvent, err: unknown): void {
  const reason = err instanceof StageError ? "stage_failed" : err instanceof PayloadTooLargeError ? "payload_too_large" : "queue_failed";
  logger.warn({ reason, event_id: event.event_id, err }, "event rejected");
  instruments.events("dropped");
}

/**
 * The broker's wiring: the edge half (`gateway/edge.ts`) queues inbound events on the turn
 * stream, the worker half (`worker/worker.ts`) consumes it, runs one turn at a time per session
 * key and acks each event after its turn's delivery finished. Build one with `createBroker`.
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
  #state: "created" | "running" | "stopping" | "stopped" = "created";
  #consuming: Subscription | undefined;
  #edge: Edge | undefined;
  #stopping: Promise<StopResult> | undefined;
  /** How events are queued on each partition, built on first use: the same for all of a partition's events. */
  readonly #queueing: QueueEventOptions[] = [];

  constructor(parts: BrokerParts) {
    this.#parts = parts;
    this.config = parts.config;
    this.bus = parts.bus;
    this.logger = parts.logger;
    this.role = parts.role;
    this.#subjects = subjects(parts.config.bus.prefix);
    this.#instruments = parts.metrics ?? noInstruments;
    this.#levels = new LevelsWritten(parts.logger);
    // An edge sends too (the trust echo): through the same limits, the per-bot one from the shared pool.
    const shaper = this.#sendShaper(parts);
    this.#send = createSender({
      bus: parts.bus,
      subjects: this.#subjects,
      pipeline: parts.pipeline,
      timeoutMs: (parts.config.gateway?.gateway_ack_timeout_secs ?? 12) * 1000 + sendMarginMs,
      // On a shared bus an answer can be lost between servers: ask again (the edge recognises a retry).
      retries: parts.bus.shared ? sendRetries : 0,
      instruments: this.#instruments,
      // A gateway's "try again later" is waited out for as long as a turn may run.
      retryBudgetMs: parts.config.pool.prompt_hard_timeout_secs * 1000,
      onRetry: ({ message, error, waitMs, attempt }) =>
        this.logger.warn({ reason: "retry_later", code: error.code, platform: message.platform, retryAfterMs: waitMs, attempt }, "gateway asked to send later; sending again"),
      // Each send as it leaves, for tracing pacing and rate limits: its fields are built only when written.
      onAttempt: (message, attempt) => {
        if (this.#levels.debug) this.logger.debug({ platform: message.platform, channel: message.channel.id, kind: messageKind(message.command), attempt }, SEND_LEAVING_LOG);
      },
      // A worker's sends wait for their platform's rate limits.
      ...(shaper === undefined ? {} : { shaper }),
    });
    this.#worker =
      parts.role === "edge"
        ? undefined
        : new Worker({
            config: parts.config,
            bus: parts.bus,
            subjects: this.#subjects,
            logger: parts.logger,
            levels: this.#levels,
            pipeline: parts.pipeline,
            handler: parts.turnHandler,
            send: this.#send,
            // On NATS a message's send request must also fit the server's max_payload (a gateway may allow more, or no limit).
            messageLimit: (platform) => Math.min(parts.connector?.messageLimit(platform) ?? 4096, busMessageChars(parts.bus.maxMessageBytes?.())),
            capabilities: (platform) => parts.connector?.capabilities(platform),
            ownership: parts.ownership ?? allPartitions(parts.config.bus.partitions),
            ...(parts.ledger === undefined ? {} : { ledger: parts.ledger }),
            ...(parts.triage === undefined ? {} : { triage: parts.triage }),
            ...(parts.history === undefined ? {} : { history: parts.history }),
            accepting: () => this.#state === "running",
            instruments: this.#instruments,
          });
    this.settledTurns = this.#worker?.settledTurns ?? this.#noTurns.asObservable();
    const { metrics } = parts;
    if (metrics !== undefined) {
      metrics.read({
        ...(parts.connector === undefined ? {} : { gatewayConnected: () => parts.connector?.isConnected === true }),
        ...(this.#worker === undefined ? {} : { partitionsOwned: () => this.#worker?.ownedPartitions ?? 0 }),
      });
      this.#metricsServer = new MetricsServer({
        listen: parts.config.metrics.listen,
        metrics: () => metrics.metrics(),
        contentType: metrics.registry.contentType,
        readiness: () => this.readiness(),
        health: new EventLoopHealth(),
        logger: parts.logger,
      });
    }
  }

  /**
   * The worker's send shaper when `[rate_limits]` leaves any platform limited: conversation buckets
   * here, the per-bot ones in `parts.rates`. On a shared bus those are the deployment's: this
   * worker keeps its part of each limit locally (by the partitions it owns) and asks the shared
   * pool for the rest, with its share of the pool as the fallback when the pool cannot be reached.
   */
  #sendShaper(parts: BrokerParts): SendShaper | undefined {
    const limits = resolveRateLimits(parts.config.rate_limits);
    if (limits.size === 0) return undefined;
    const rates = parts.rates ?? new MemoryRateBuckets();
    const { partitions } = parts.config.bus;
    const owned = () => this.#worker?.ownedPartitions ?? 0;
    const bot = parts.bus.shared
      ? new ShareFirstRateBuckets({
          pool: new FallbackRateBuckets({ shared: rates, share: () => Math.max(1, owned()) / partitions, logger: parts.logger }),
          share: () => owned() / partitions,
        })
      : rates;
    return new SendShaper({
      limits: (platform) => limits.get(platform),
      bot,
      scheduler: parts.bus.scheduler,
      onWait: ({ bucket, waitedMs }) => this.#instruments.sendShaped(bucket, waitedMs / 1000),
      onBucketError: (err) => parts.logger.warn({ reason: "rate_bucket_failed", err }, "rate limit bucket failed; sending by the conversation's limits"),
    });
  }

  /**
   * Whether this process can do its role's work now (what `/readyz` answers): running and not
   * draining, its bus connected, an edge's gateway connected, a worker holding its share of the
   * partitions (all of them on the embedded bus).
   */
  readiness(): Readiness {
    const connector = this.#parts.connector;
    const worker = this.#worker;
    return readiness({
      phase: this.#phase(),
      bus: this.bus.connected?.() ?? true,
      ...(connector === undefined ? {} : { gateway: connector.isConnected }),
      ...(worker === undefined
        ? {}
        : { partitions: { owned: worker.ownedPartitions, share: this.#parts.partitionShare === undefined ? this.config.bus.partitions : this.#parts.partitionShare() } }),
    });
  }

  /** The metrics listener's address (`http://host:port`), once started with `[metrics]` enabled. */
  get metricsUrl(): string | undefined {
    return this.#metricsServer?.url;
  }

  #phase(): BrokerPhase {
    if (this.#state === "stopped") return "stopped";
    // A stop that has begun is draining at once, before the edge's intake has flushed.
    if (this.#stopping !== undefined) return "draining";
    return this.#state === "running" ? "running" : "starting";
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
    this.#consuming = this.#worker?.run().subscribe();
    this.#state = "running";
    const { connector } = this.#parts;
    if (connector !== undefined && this.config.gateway !== undefined) {
      this.#edge = runEdge({
        connector,
        gateway: this.config.gateway,
        inbound: this.config.inbound,
        // Bubble modes and streaming wait for each ack to keep order on the wire; so does any edge on a
        // shared bus, where one conversation's messages may leave through several edges' sockets.
        // The activity message is edited and deleted later, so it needs its id from the ack too.
        wantAck: this.config.delivery.mode !== "text" || this.config.gateway.streaming || this.config.activity.enabled || this.bus.shared,
        // Only after the intake drained does the broker stop taking events, so nothing reaches here stopped.
        queue: (event, key, done) => this.#intake(event, key, done),
        bus: this.bus,
        subjects: this.#subjects,
        logger: this.logger,
        scheduler: this.bus.scheduler,
        instruments: this.#instruments,
        notices: this.#send,
      });
      connector.start();
    }
    this.logger.info({ role: this.role, bus: this.bus.shared ? "external" : "memory", partitions: this.config.bus.partitions }, "broker ready");
  }

  /**
   * Queues an event for its turn, as the gateway connector does for every frame that passed the
   * ingress checks: runs the `afterIngress` stage, then persists each resulting event on its
   * partition with message id `platform:event_id`. Resolves with what was queued (nothing when a
   * stage dropped the event).
   */
  submit(event: GatewayEvent): Promise<readonly QueuedEvent[]> {
    if (this.#state !== "running") return Promise.reject(new BrokerStoppedError());
    if (this.role === "worker") return Promise.reject(new Error("a worker-only broker does not take events; submit to an edge"));
    return new Promise((resolve, reject) => this.#queue(event, sessionKey(event), (result) => (result.ok ? resolve(result.queued) : reject(result.err))));
  }

  /**
   * The edge's `#queue`: the same appends, logs and counts, but `done` hears only that the event
   * is appended or refused (the edge reads nothing else), so nothing is built to say what was queued.
   */
  #intake(event: GatewayEvent, key: string, done: () => void): void {
    if (this.#parts.pipeline.isEmpty("afterIngress")) this.#appendItself(event, partitionOf(key, this.config.bus.partitions), done);
    else this.#queue(event, key, () => done());
  }

  /** Nothing to run, drop or fan out: the event itself is appended on `partition`, a refusal logged and a duplicate counted. */
  #appendItself(event: GatewayEvent, partition: number, done: (outcome: QueueOutcome) => void): void {
    queueEvent(event, this.#queueOptions(partition), (outcome) => {
      if (!outcome.ok) logRejected(this.logger, this.#instruments, event, outcome.err);
      else if (outcome.ack.duplicate) this.#instruments.events("duplicate");
      done(outcome);
    });
  }

  /**
   * `submit` on callbacks (no promise or stream per event): each value
   * `afterIngress` lets through is appended in turn, and `done` hears once what was queued, or
   * the stage's or the bus's error (logged here as `event rejected` with a stable reason). `key` is
   * the event's `sessionKey`, which the caller has already computed.
   */
  #queue(event: GatewayEvent, key: string, done: (result: Queued) => void): void {
    if (this.#parts.pipeline.isEmpty("afterIngress")) {
      const partition = partitionOf(key, this.config.bus.partitions);
      this.#appendItself(event, partition, (outcome) =>
        done(outcome.ok ? { ok: true, queued: [{ event_id: event.event_id, partition, seq: outcome.ack.seq, duplicate: outcome.ack.duplicate }] } : outcome),
      );
      return;
    }
    const queued: QueuedEvent[] = [];
    const waiting: GatewayEvent[] = [];
    let appending = false;
    let stageOpen = true;
    let ended = false;
    const end = (result: Queued): void => {
      if (ended) return;
      ended = true;
      if (!result.ok) logRejected(this.logger, this.#instruments, event, result.err);
      // Nothing queued and nothing refused: the stage dropped the event.
      else if (result.queued.length === 0) this.#instruments.events("dropped");
      done(result);
    };
    // Appended one after another, as they left the stage (a fanned-out event keeps its order).
    const appendNext = (): void => {
      while (!appending && !ended) {
        const accepted = waiting.shift();
        if (accepted === undefined) {
          if (!stageOpen) end({ ok: true, queued });
          return;
        }
        appending = true;
        let synchronous = true;
        // The stage may have changed the conversation: the key is the accepted event's own.
        const partition = partitionOf(sessionKey(accepted), this.config.bus.partitions);
        queueEvent(accepted, this.#queueOptions(partition), (outcome) => {
          if (!outcome.ok) {
            end({ ok: false, err: outcome.err });
            return;
          }
          queued.push({ event_id: accepted.event_id, partition, seq: outcome.ack.seq, duplicate: outcome.ack.duplicate });
          if (outcome.ack.duplicate) this.#instruments.events("duplicate");
          appending = false;
          if (!synchronous) appendNext();
        });
        synchronous = false;
      }
    };
    this.#parts.pipeline.runValue("afterIngress", event, {
      next: (accepted) => {
        waiting.push(accepted);
        appendNext();
      },
      error: (err) => end({ ok: false, err }),
      complete: () => {
        stageOpen = false;
        appendNext();
      },
    });
  }

  #queueOptions(partition: number): QueueEventOptions {
    return (this.#queueing[partition] ??= {
      bus: this.bus,
      subject: this.#subjects.turn(partition),
      logger: this.logger,
      retryForMs: queueRetryMs,
      stillRunning: () => this.#state === "running",
    });
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
    // Debounced messages the edge still holds are queued before the broker refuses new events.
    if (this.#edge !== undefined) await Promise.race([this.#edge.stopIntake(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
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
    this.#edge?.responder.unsubscribe();
    await this.#parts.connector?.close();
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
