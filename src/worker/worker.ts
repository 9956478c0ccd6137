import { defer, filter, firstValueFrom, map, Observable, of, Subject, take, type Unsubscribable } from "rxjs";
import { summaryLine } from "../../operators/dispatch/queuedPrompt.js";
import { batchTokens } from "../../operators/dispatch/batchTokens.js";
import { dispatchKey, type ProcessingMode } from "../../operators/dispatch/dispatchKey.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import { LaneQueue, type BatchBound, type LaneBatch } from "../../operators/dispatch/laneQueue.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { Bus } from "../bus/bus.js";
import { processingOf, type Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import type { LevelsWritten } from "../log/levelsWritten.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { Send } from "../pipeline/send.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import type { Subjects } from "../wire/subjects.js";
import type { SettledTurn, TurnTriage } from "../turn/turn.js";
import { PartitionIntake, type IntakeMessage } from "./partitionIntake.js";
import type { TurnHandler } from "../turn/turn.js";
import { BatchRun, type BatchSlots } from "./batchRun.js";
import type { GroupHistory } from "../turn/groupHistory.js";
import type { TurnRunOptions } from "./turnRun.js";

type Intake = IntakeMessage<GatewayEvent>;

/** How long an event whose turn could not reach shared state waits before it is tried again. */
const deferMs = 1_000;

export interface WorkerOptions {
  readonly config: Config;
  readonly bus: Bus;
  readonly subjects: Subjects;
  readonly logger: Logger;
  /** Which levels `logger` writes, kept up to date by its owner (the broker): turns build a line's fields only for a line that is written. */
  readonly levels: LevelsWritten;
  readonly pipeline: Pipeline;
  readonly handler: TurnHandler | undefined;
  readonly send: Send;
  readonly messageLimit: (platform: string) => number;
  /** A platform's negotiated capabilities; undefined in legacy mode, or on a worker without an edge in its process. */
  readonly capabilities?: (platform: string) => PlatformCapabilities | undefined;
  /** The partitions this worker consumes, as they change (current value first). */
  readonly ownership: Observable<ReadonlySet<number>>;
  readonly ledger?: DeliveryLedger;
  readonly triage?: TurnTriage;
  /** False once the broker is stopping: no new turn starts. */
  readonly accepting: () => boolean;
  /** What the worker counts (default: nothing). */
  readonly instruments?: Instruments;
  /** `[inbound] history_limit` > 0: where group history events are kept; absent, they are dropped. */
  readonly history?: GroupHistory;
}

/**
 * The worker half: consumes the partitions it owns, runs one turn at a time per session key in
 * its lanes (`LaneQueue`, the callback core of `sessionLanes`) under `[queue] mode`, and acks each
 * event after its turn's delivery finished. A lane's batch and its turns run on callbacks, one
 * after another, so an event costs a few calls rather than a chain of streams.
 */
export class Worker {
  readonly #options: WorkerOptions;
  readonly #slots: BatchSlots;
  readonly #intake: PartitionIntake<GatewayEvent>;
  /** OpenAB's `message_processing_mode` (`processingOf`: one for every platform): what a lane is, and whether its batches are OpenAB's. */
  readonly #processing: ProcessingMode;
  readonly #instruments: Instruments;
  /** What the logger writes: turns build a line's fields only for a line that is written. */
  readonly #levels: LevelsWritten;
  /** Events in the lanes that have not started their turn (the `queued_events` gauge's share of this worker). */
  #waiting = 0;
  /** Turns running right now. */
  #inFlight = 0;
  /** The last running turn just finished (told only while someone waits: a turn per event must not cost a notification). */
  readonly #idle = new Subject<void>();
  /** Turns running per partition, for draining a partition before its lease is handed on. */
  readonly #running: number[] = [];
  /** A partition whose last running turn just finished. */
  readonly #partitionIdle = new Subject<number>();
  readonly #settled = new Subject<SettledTurn>();
  /** Every turn this worker finished, as it finishes (after its delivery and ack). */
  readonly settledTurns: Observable<SettledTurn> = this.#settled.asObservable();
  /** Emits once no turn runs — at once when none does — then completes. */
  readonly whenIdle: Observable<void> = defer(() => (this.#inFlight === 0 ? of(undefined) : this.#idle.pipe(take(1))));

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.#processing = processingOf(options.config).message_processing_mode;
    this.#instruments = options.instruments ?? noInstruments;
    this.#intake = new PartitionIntake<GatewayEvent>({
      bus: options.bus,
      subjects: options.subjects,
      ownership: options.ownership,
      logger: options.logger,
      // When an event arrived is read by the instruments (time to first message) and by OpenAB's batches (their waits).
      stampReceipt: this.#instruments !== noInstruments || this.#processing !== "per-message",
    });
    this.#levels = options.levels;
    const turn: TurnRunOptions = {
      instruments: this.#instruments,
      bus: options.bus,
      logger: options.logger,
      pipeline: options.pipeline,
      handler: options.handler,
      send: options.send,
      messageLimit: options.messageLimit,
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
      ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
      // Triage's options built once, on the bus clock, not per proactive event.
      ...(options.triage === undefined ? {} : { triage: { ...options.triage, scheduler: options.bus.scheduler } }),
      retryInMs: deferMs,
      levels: this.#levels,
      onSettled: (settled) => {
        if (this.#settled.observed) this.#settled.next(settled);
      },
    };
    const intake = this.#intake;
    this.#slots = {
      scheduler: options.bus.scheduler,
      logger: options.logger,
      ledger: options.ledger,
      turn,
      deferMs,
      accepting: options.accepting,
      isCurrent: (item) => intake.isCurrent(item),
      count: (partition, delta) => this.#count(partition, delta),
      batching: this.#processing !== "per-message",
    };
  }

  /** Partitions consumed right now. */
  get ownedPartitions(): number {
    return this.#intake.ownedCount;
  }

  /** Turns running right now. */
  get running(): number {
    return this.#inFlight;
  }

  /**
   * The turn stream consumed, for as long as it is subscribed. Hand-written over the intake rather
   * than piped through `sessionLanes`: an event is a few calls into the lanes (`LaneQueue`) and a
   * batch runs on callbacks, with no stream or subscription of its own.
   */
  run(): Observable<never> {
    const { queue } = this.#options.config;
    const { handler, logger } = this.#options;
    const instruments = this.#instruments;
    return new Observable<never>((subscriber) => {
      const lanes = new LaneQueue<Intake>((item) => this.#laneOf(item), (batch, key, done) => this.#batch(batch, key, done), {
        mode: queue.mode,
        quietMs: queue.debounce_ms,
        cap: queue.cap,
        drop: queue.drop,
        describe: (item) => summaryLine(item.message.data.content.text),
        onDropped: (items) => {
          this.#queued(-items.length);
          instruments.events("dropped", items.length);
          for (const { message } of items) {
            message.ack();
            logger.info({ reason: queue.mode === "interrupt" ? "superseded" : "queue_cap", sessionKey: sessionKey(message.data), event_id: message.data.event_id }, "queued message dropped");
          }
        },
        onInterrupt: (key) => handler?.interrupt?.(key),
        ...this.#bound(),
        scheduler: this.#options.bus.scheduler,
      });
      const intake = this.#intake.messages.subscribe({
        next: (item) => {
          // Group history is kept, never a turn: it skips the lanes (it must not batch with, or interrupt, a turn).
          if (this.#keptAsHistory(item)) return;
          this.#queued(+1);
          try {
            lanes.push(item);
          } catch (err) {
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => lanes.end(() => subscriber.complete()),
      });
      return () => {
        intake.unsubscribe();
        lanes.close();
        // Whatever waited when consuming stopped is handed back to the bus: none waits here any more.
        this.#queued(-this.#waiting);
      };
    });
  }

  /**
   * Whether the item is group history: then it is kept (acked once written; handed back when the
   * store failed, and written again, at most once per message id) and goes no further.
   */
  #keptAsHistory({ message }: Intake): boolean {
    if (message.data.history !== true) return false;
    const { history, logger } = this.#options;
    const fields = { sessionKey: sessionKey(message.data), event_id: message.data.event_id };
    if (history === undefined) {
      logger.info({ ...fields, reason: "history_off" }, "group history event dropped");
      message.ack();
      return true;
    }
    history.keep(message.data).subscribe({
      complete: () => message.ack(),
      error: (err: unknown) => {
        logger.warn({ ...fields, reason: "history_write_failed", err }, "group history not kept; trying again");
        message.nak(deferMs);
      },
    });
    return true;
  }

  #queued(delta: number): void {
    this.#waiting += delta;
    this.#instruments.queued(delta);
  }

  /** No further turns are reported; call when the broker has stopped. */
  close(): void {
    this.#settled.complete();
  }

  /**
   * Lets `partition`'s running turns finish and starts no new ones there; resolves when none runs.
   * Its lease may then go to another worker (messages still held are handed back when the
   * partition leaves the owned set).
   */
  drainPartition(partition: number): Promise<void> {
    this.#intake.drain(partition);
    if ((this.#running[partition] ?? 0) === 0) return Promise.resolve();
    return firstValueFrom(this.#partitionIdle.pipe(filter((idle) => idle === partition), map(() => undefined)), { defaultValue: undefined });
  }

  /**
   * The event's lane (`dispatchKey`: the session, or the session and sender under `per-lane`), or a
   * lane of its own for an event the handler must see at once (`/cancel`).
   */
  #laneOf({ message }: Intake): string {
    // A fourth `:` part of digits: no session or sender lane has one, so this lane is never another's.
    if (this.#options.handler?.bypassesLane?.(message.data) === true) return `${sessionKey(message.data)}:${message.seq}`;
    return dispatchKey(message.data, this.#processing);
  }

  /** Under OpenAB batching, how much one batch holds (`max_buffered_messages`, `max_batch_tokens`). */
  #bound(): { bound?: BatchBound<Intake> } {
    if (this.#processing === "per-message") return {};
    const { max_buffered_messages: items, max_batch_tokens: tokens } = processingOf(this.#options.config);
    return { bound: { items, tokens, tokensOf: (item) => batchTokens(item.message.data) } };
  }

  /** A lane's batch: its turns on callbacks (`BatchRun`), `done` once the last is over. */
  #batch(batch: LaneBatch<Intake>, laneKey: string, done: () => void): Unsubscribable | undefined {
    this.#queued(-batch.items.length);
    return new BatchRun(this.#slots, batch, laneKey, done).start();
  }

  #count(partition: number, delta: number): void {
    this.#inFlight += delta;
    if (this.#inFlight === 0 && this.#idle.observed) this.#idle.next();
    const count = (this.#running[partition] ?? 0) + delta;
    this.#running[partition] = count;
    if (count > 0) return;
    if (this.#partitionIdle.observed) this.#partitionIdle.next(partition);
  }
}

/** Every partition, for a worker that owns them all (the embedded bus). */
export function allPartitions(partitions: number): Observable<ReadonlySet<number>> {
  return of(new Set(Array.from({ length: partitions }, (_, i) => i)));
}
