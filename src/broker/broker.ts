import {
  BehaviorSubject,
  catchError,
  concat,
  Subject,
  concatMap,
  defer,
  EMPTY,
  filter,
  finalize,
  firstValueFrom,
  from,
  ignoreElements,
  lastValueFrom,
  map,
  mergeMap,
  race,
  tap,
  timer,
  toArray,
  type Observable,
  type Subscription,
} from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { collectedPrompt, summaryLine } from "../../operators/dispatch/queuedPrompt.js";
import { sessionLanes, type LaneBatch } from "../../operators/dispatch/sessionLanes.js";
import { isControlCommand } from "../../operators/ingress/controlCommand.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { Bus, DurableMessage } from "../bus/bus.js";
import { MemoryBus } from "../bus/memoryBus.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { StageError } from "../pipeline/errors.js";
import { Pipeline } from "../pipeline/pipeline.js";
import { createSender, type Send } from "../pipeline/send.js";
import { subjects, type Subjects } from "../pipeline/subjects.js";
import { runEdge, type Edge } from "../gateway/edge.js";
import type { GatewayConnector } from "../gateway/connector.js";
import { BrokerStoppedError, NoAgentError } from "./errors.js";
import type { TurnHandler } from "./turn.js";

export type Role = "all" | "edge" | "worker";

/** One event accepted onto the turn stream. */
export interface QueuedEvent {
  readonly event_id: string;
  readonly partition: number;
  readonly seq: number;
  /** The same `platform:event_id` was queued before, within the bus's duplicate window. */
  readonly duplicate: boolean;
}

/** A turn a worker finished: `ok` false when it failed. */
export interface SettledTurn {
  readonly sessionKey: string;
  readonly event_id: string;
  readonly ok: boolean;
}

export interface StopResult {
  /** Turns that were running when the stop began and finished within the grace period. */
  readonly finished: number;
  /** Turns cancelled because the grace period ran out; their events stay unacked. */
  readonly abandoned: number;
}

export interface BrokerParts {
  readonly config: Config;
  readonly bus: Bus;
  /** Whether `stop()` closes the bus (true when the broker created it). */
  readonly ownsBus: boolean;
  readonly logger: Logger;
  readonly pipeline: Pipeline;
  readonly role: Role;
  readonly turnHandler: TurnHandler | undefined;
  /** The gateway connection this process holds (edge role), if `[gateway]` is configured. */
  readonly connector?: GatewayConnector;
  /** Runs last when the broker stops (closing the session pool's agents). */
  readonly onStopped?: () => Promise<void>;
}

const sendMarginMs = 5_000;

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
    });
  }

  /** Starts consuming (worker role) and logs `broker ready`. */
  async start(): Promise<void> {
    if (this.#state !== "created") throw new Error(`broker cannot start when ${this.#state}`);
    if (this.role !== "edge") this.#worker = this.#consumeTurns().subscribe();
    this.#state = "running";
    const { connector } = this.#parts;
    if (connector !== undefined && this.config.gateway !== undefined) {
      this.#edge = runEdge({
        connector,
        gateway: this.config.gateway,
        inbound: this.config.inbound,
        wantAck: this.config.delivery.mode !== "text" || this.config.gateway.streaming,
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
        return this.bus
          .persist(this.#subjects.turn(partition), accepted, { msgId: `${accepted.platform}:${accepted.event_id}` })
          .pipe(
            tap((ack) => {
              // Several edges (or a gateway's retry) delivered this event already: it runs once.
              if (ack.duplicate) {
                this.logger.info({ decision: "suppressed", reason: "duplicate", platform: accepted.platform, event_id: accepted.event_id }, "duplicate event collapsed");
              }
            }),
            map((ack) => ({ event_id: accepted.event_id, partition, seq: ack.seq, duplicate: ack.duplicate })),
          );
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

  #consumeTurns(): Observable<never> {
    const { queue } = this.config;
    return this.bus.consume<GatewayEvent>(this.#subjects.turns, { durable: this.#subjects.turnConsumer }).pipe(
      sessionLanes((message) => this.#laneOf(message), (batch) => this.#runBatch(batch), {
        mode: queue.mode,
        quietMs: queue.debounce_ms,
        cap: queue.cap,
        drop: queue.drop,
        describe: (message) => summaryLine(message.data.content.text),
        onDropped: (messages) => {
          for (const message of messages) {
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
   * A lane's batch as turns: consecutive messages collected into one turn (OpenClaw's collect
   * prompt when there are several, or when the cap dropped some), control commands each alone.
   */
  #runBatch(batch: LaneBatch<DurableMessage<GatewayEvent>>): Observable<never> {
    const turns: DurableMessage<GatewayEvent>[][] = [];
    for (const message of batch.items) {
      const control = isControlCommand(message.data.content.text);
      const last = turns[turns.length - 1];
      if (control || last === undefined || isControlCommand(last[0]?.data.content.text ?? "")) turns.push([message]);
      else last.push(message);
    }
    return concat(...turns.map((messages, i) => this.#runTurn(messages, i === 0 ? batch.summary : [])));
  }

  /** The session's lane, or a lane of its own for an event the handler must see at once (`/cancel`). */
  #laneOf(message: DurableMessage<GatewayEvent>): string {
    const key = sessionKey(message.data);
    return this.#parts.turnHandler?.bypassesLane?.(message.data) === true ? `${key}!${message.seq}` : key;
  }

  /** A turn's whole life on the worker; settles (acks) its events unless the broker is stopping. */
  #runTurn(messages: readonly DurableMessage<GatewayEvent>[], dropped: readonly string[]): Observable<never> {
    return defer(() => {
      // Stopping: leave the events unacked; unsubscribing hands them back to the bus for redelivery.
      if (this.#state !== "running" || messages.length === 0) return EMPTY;
      const first = messages[0] as DurableMessage<GatewayEvent>;
      const turnEvent = collected(messages.map((message) => message.data), dropped);
      const settle = (ok: boolean) => {
        for (const message of messages) message.ack();
        this.#settled.next({ sessionKey: sessionKey(turnEvent), event_id: turnEvent.event_id, ok });
      };
      const started = this.bus.scheduler.now();
      const log = this.logger.child({ sessionKey: sessionKey(turnEvent), event_id: turnEvent.event_id });
      this.#inFlight.next(this.#inFlight.value + 1);
      return this.#parts.pipeline.run("beforeDispatch", turnEvent).pipe(
        mergeMap((event) => {
          const handler = this.#parts.turnHandler;
          if (handler === undefined) throw new NoAgentError();
          log.debug({ deliveryCount: first.deliveryCount, collected: messages.length }, "turn started");
          const context = { send: this.#send, scheduler: this.bus.scheduler, logger: log, messageLimit: this.#messageLimit };
          return from(handler({ sessionKey: sessionKey(event), event }, context));
        }),
        ignoreElements(),
        tap({
          complete: () => {
            settle(true);
            log.info({ durationMs: this.bus.scheduler.now() - started }, "turn complete");
          },
          error: (err: unknown) => {
            settle(false);
            log.error({ reason: failureReason(err), err, durationMs: this.bus.scheduler.now() - started }, "turn failed");
          },
        }),
        // A failed turn is settled and logged above; it must never stop the worker.
        catchError(() => EMPTY),
        finalize(() => this.#inFlight.next(this.#inFlight.value - 1)),
      );
    });
  }
}

function failureReason(err: unknown): string {
  if (err instanceof StageError) return "stage_failed";
  if (err instanceof NoAgentError) return "no_agent";
  return "turn_failed";
}

/**
 * The event a turn runs on: the message itself, or — for messages collected while the session was
 * busy — the last one carrying OpenClaw's collect prompt (every message with its sender).
 */
function collected(events: readonly GatewayEvent[], dropped: readonly string[]): GatewayEvent {
  const last = events[events.length - 1] as GatewayEvent;
  if (events.length === 1 && dropped.length === 0) return last;
  const text = collectedPrompt(
    events.map((event) => ({ sender: event.sender.display_name || event.sender.name || event.sender.id, text: event.content.text })),
    dropped,
  );
  return { ...last, content: { ...last.content, text } };
}
