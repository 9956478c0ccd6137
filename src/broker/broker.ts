import {
  BehaviorSubject,
  concat,
  Subject,
  concatMap,
  defer,
  EMPTY,
  filter,
  finalize,
  firstValueFrom,
  from,
  lastValueFrom,
  map,
  of,
  race,
  timer,
  toArray,
  type Observable,
  type Subscription,
} from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { summaryLine } from "../../operators/dispatch/queuedPrompt.js";
import { sessionLanes, type LaneBatch } from "../../operators/dispatch/sessionLanes.js";
import { isControlCommand } from "../../operators/ingress/controlCommand.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { Bus } from "../bus/bus.js";
import { MemoryBus } from "../bus/memoryBus.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { StageError } from "../pipeline/errors.js";
import { createSender, type Send } from "../pipeline/send.js";
import { subjects, type Subjects } from "../wire/index.js";
import { runEdge, type Edge } from "../gateway/edge.js";
import { BrokerStoppedError } from "./errors.js";
import type { BrokerParts, QueuedEvent, Role, SettledTurn, StopResult } from "./brokerParts.js";
import { PartitionIntake, type IntakeMessage } from "./partitionIntake.js";
import { queueEvent } from "./queueEvent.js";
import { DEFERRED, settledTurn } from "./settledTurn.js";
import { admitByLedger } from "./turnLedger.js";

export type { BrokerParts, QueuedEvent, Role, SettledTurn, StopResult } from "./brokerParts.js";

type Intake = IntakeMessage<GatewayEvent>;

const sendMarginMs = 5_000;
/** Further requests for a send nobody answered, on a shared bus. */
const sendRetries = 3;
/** How long an event whose turn could not reach shared state waits before it is tried again. */
const deferMs = 1_000;
/** How long `submit` keeps retrying to queue an event while the bus is unreachable (a NATS restart, say). */
const queueRetryMs = 30_000;

/**
 * The broker's wiring: the edge half queues inbound events on the turn stream, the worker half
 * consumes it, runs one turn at a time per session key and acks each event after its turn's
 * delivery finished. Build one with `createBroker`.
 */
export class Broker {
  readonly config: Config;
  readonly bus: Bus;
  readonly logger: Logger;
  readonly role: Role;
  readonly #parts: BrokerParts;
  readonly #subjects: Subjects;
  readonly #send: Send;
  readonly #inFlight = new BehaviorSubject(0);
  /** Turns running per partition, for draining a partition before its lease is handed on. */
  readonly #running = new Map<number, number>();
  /** A partition whose last running turn just finished. */
  readonly #partitionIdle = new Subject<number>();
  #intake: PartitionIntake<GatewayEvent> | undefined;
  readonly #settled = new Subject<SettledTurn>();
  /** Every turn this worker finished, as it finishes (after its delivery and ack). */
  readonly settledTurns: Observable<SettledTurn> = this.#settled.asObservable();
  #state: "created" | "running" | "stopping" | "stopped" = "created";
  #worker: Subscription | undefined;
  #edge: Edge | undefined;
  #stopping: Promise<StopResult> | undefined;

  constructor(parts: BrokerParts) {
    this.#parts = parts;
    this.config = parts.config;
    this.bus = parts.bus;
    this.logger = parts.logger;
    this.role = parts.role;
    this.#subjects = subjects(parts.config.bus.prefix);
    this.#send = createSender({
      bus: parts.bus,
      subjects: this.#subjects,
      pipeline: parts.pipeline,
      timeoutMs: (parts.config.gateway?.gateway_ack_timeout_secs ?? 12) * 1000 + sendMarginMs,
      // On a shared bus an answer can be lost between servers: ask again (the edge recognises a retry).
      retries: parts.bus instanceof MemoryBus ? 0 : sendRetries,
    });
  }

  /** Starts consuming (worker role) and logs `broker ready`. */
  async start(): Promise<void> {
    if (this.#state !== "created") throw new Error(`broker cannot start when ${this.#state}`);
    await this.#parts.onStart?.();
    if (this.role !== "edge") this.#worker = this.#consumeTurns().subscribe();
    this.#state = "running";
    const { connector } = this.#parts;
    if (connector !== undefined && this.config.gateway !== undefined) {
      this.#edge = runEdge({
        connector,
        gateway: this.config.gateway,
        inbound: this.config.inbound,
        // Bubble modes and streaming wait for each ack to keep order on the wire; so does any edge on a
        // shared bus, where one conversation's messages may leave through several edges' sockets.
        wantAck: this.config.delivery.mode !== "text" || this.config.gateway.streaming || !(this.bus instanceof MemoryBus),
        submit: (event) => this.submit(event),
        bus: this.bus,
        subjects: this.#subjects,
        logger: this.logger,
        scheduler: this.bus.scheduler,
      });
      connector.start();
    }
    this.logger.info(
      { role: this.role, bus: this.bus instanceof MemoryBus ? "memory" : "external", partitions: this.config.bus.partitions },
      "broker ready",
    );
  }

  /**
   * Queues an event for its turn, as the gateway connector does for every frame that passed the
   * ingress checks: runs the `afterIngress` stage, then persists each resulting event on its
   * partition with message id `platform:event_id`. Resolves with what was queued (nothing when a
   * stage dropped the event).
   */
  async submit(event: GatewayEvent): Promise<readonly QueuedEvent[]> {
    if (this.#state !== "running") throw new BrokerStoppedError();
    if (this.role === "worker") throw new Error("a worker-only broker does not take events; submit to an edge");
    const queued = this.#parts.pipeline.run("afterIngress", event).pipe(
      concatMap((accepted) => {
        const partition = partitionOf(sessionKey(accepted), this.config.bus.partitions);
        return queueEvent(accepted, {
          bus: this.bus,
          subject: this.#subjects.turn(partition),
          logger: this.logger,
          retryForMs: queueRetryMs,
          stillRunning: () => this.#state === "running",
        }).pipe(map((ack) => ({ event_id: accepted.event_id, partition, seq: ack.seq, duplicate: ack.duplicate })));
      }),
      toArray(),
    );
    try {
      return await lastValueFrom(queued);
    } catch (err) {
      this.logger.warn(
        { reason: err instanceof StageError ? "stage_failed" : "queue_failed", event_id: event.event_id, err },
        "event rejected",
      );
      throw err;
    }
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
    const running = this.#inFlight.value;
    this.#state = "stopping";
    this.logger.info({ inFlight: running, graceMs }, "broker stopping");
    const idle$ = this.#inFlight.pipe(filter((n) => n === 0), map(() => true));
    const drained = await firstValueFrom(race(idle$, timer(graceMs, this.bus.scheduler).pipe(map(() => false))));
    const abandoned = drained ? 0 : this.#inFlight.value;
    if (!drained) this.logger.warn({ reason: "grace_expired", abandoned, graceMs }, "shutdown grace expired");
    this.#worker?.unsubscribe();
    await this.#parts.onStopping?.();
    this.#edge?.responder.unsubscribe();
    await this.#parts.connector?.close();
    await this.#parts.onStopped?.();
    if (this.#parts.ownsBus) await this.bus.close();
    this.#state = "stopped";
    this.#settled.complete();
    const result = { finished: running - abandoned, abandoned };
    this.logger.info(result, "broker stopped");
    return result;
  }

  readonly #messageLimit = (platform: string): number => this.#parts.connector?.messageLimit(platform) ?? 4096;

  /**
   * Lets `partition`'s running turns finish and starts no new ones there; resolves when none runs.
   * Its lease may then go to another worker (messages still held are handed back when the
   * partition leaves the owned set).
   */
  drainPartition(partition: number): Promise<void> {
    this.#intake?.drain(partition);
    if (!this.#running.has(partition)) return Promise.resolve();
    return firstValueFrom(this.#partitionIdle.pipe(filter((idle) => idle === partition), map(() => undefined)), { defaultValue: undefined });
  }

  #consumeTurns(): Observable<never> {
    const { queue, bus: busConfig } = this.config;
    const intake = new PartitionIntake<GatewayEvent>({
      bus: this.bus,
      subjects: this.#subjects,
      ownership: this.#parts.ownership ?? of(new Set(Array.from({ length: busConfig.partitions }, (_, i) => i))),
      logger: this.logger,
    });
    this.#intake = intake;
    return intake.messages.pipe(
      sessionLanes((item) => this.#laneOf(item), (batch) => this.#runBatch(batch), {
        mode: queue.mode,
        quietMs: queue.debounce_ms,
        cap: queue.cap,
        drop: queue.drop,
        describe: (item) => summaryLine(item.message.data.content.text),
        onDropped: (items) => {
          for (const { message } of items) {
            message.ack();
            this.logger.info({ reason: queue.mode === "interrupt" ? "superseded" : "queue_cap", sessionKey: sessionKey(message.data), event_id: message.data.event_id }, "queued message dropped");
          }
        },
        onInterrupt: (key) => this.#parts.turnHandler?.interrupt?.(key),
        scheduler: this.bus.scheduler,
      }),
    );
  }

  /**
   * A lane's batch as turns: consecutive human messages collected into one turn (OpenClaw's
   * collect prompt when there are several, or when the cap dropped some); control commands and
   * proactive events each alone — triage has to judge every proactive event on its own.
   */
  #runBatch(batch: LaneBatch<Intake>): Observable<never> {
    const alone = (item: Intake) => item.message.data.proactive === true || isControlCommand(item.message.data.content.text);
    const turns: Intake[][] = [];
    for (const item of batch.items) {
      const last = turns[turns.length - 1];
      if (alone(item) || last === undefined || alone(last[0] as Intake)) turns.push([item]);
      else last.push(item);
    }
    return concat(...turns.map((items, i) => this.#runTurn(items, i === 0 ? batch.summary : [])));
  }

  /** The session's lane, or a lane of its own for an event the handler must see at once (`/cancel`). */
  #laneOf({ message }: Intake): string {
    const key = sessionKey(message.data);
    // A fourth `:` part: no session key has one, so this lane is never another conversation's.
    return this.#parts.turnHandler?.bypassesLane?.(message.data) === true ? `${key}:${message.seq}` : key;
  }

  /**
   * A turn's whole life on the worker: the ledger's say (a completed event is acked, not run
   * again), the turn, then the ledger's `complete` and the acks. Events are left unacked when the
   * broker is stopping or their partition is no longer this worker's: the bus hands them on.
   */
  #runTurn(items: readonly Intake[], dropped: readonly string[]): Observable<never> {
    return defer(() => {
      const current = items.filter((item) => this.#intake?.isCurrent(item) === true);
      if (this.#state !== "running" || current.length === 0) return EMPTY;
      const partition = (current[0] as Intake).partition;
      this.#countRunning(partition, +1);
      this.#inFlight.next(this.#inFlight.value + 1);
      return this.#attemptTurn(current, dropped).pipe(
        finalize(() => {
          this.#inFlight.next(this.#inFlight.value - 1);
          this.#countRunning(partition, -1);
        }),
      );
    });
  }

  /**
   * One attempt at a turn. One deferred because shared state was unreachable is attempted again
   * after `deferMs` right here, its events still held: it keeps its session's lane, so the
   * session's later events cannot overtake it (handing it back to the bus would let them).
   */
  #attemptTurn(items: readonly Intake[], dropped: readonly string[]): Observable<never> {
    return defer(() => {
      const current = items.filter((item) => this.#intake?.isCurrent(item) === true);
      if (this.#state !== "running" || current.length === 0) return EMPTY;
      const { ledger } = this.#parts;
      const admitted =
        ledger === undefined
          ? of({ run: current, marked: false, deferred: false })
          : from(admitByLedger(current, { ledger, now: this.bus.scheduler.now(), logger: this.logger, retryInMs: deferMs }));
      return admitted.pipe(
        concatMap(({ run, marked, deferred }) => {
          if (deferred) return of(DEFERRED);
          if (run.length === 0) return EMPTY;
          return settledTurn(
            run.map((item) => item.message),
            {
              dropped,
              marked,
              bus: this.bus,
              logger: this.logger,
              pipeline: this.#parts.pipeline,
              handler: this.#parts.turnHandler,
              send: this.#send,
              messageLimit: this.#messageLimit,
              ...(ledger === undefined ? {} : { ledger }),
              retryInMs: deferMs,
              onSettled: (turn) => this.#settled.next(turn),
            },
          );
        }),
        concatMap(() => timer(deferMs, this.bus.scheduler).pipe(concatMap(() => this.#attemptTurn(items, dropped)))),
      );
    });
  }

  #countRunning(partition: number, delta: number): void {
    const count = (this.#running.get(partition) ?? 0) + delta;
    if (count > 0) {
      this.#running.set(partition, count);
      return;
    }
    this.#running.delete(partition);
    this.#partitionIdle.next(partition);
  }
}
