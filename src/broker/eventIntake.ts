import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { Bus } from "../bus/bus.js";
import { PayloadTooLargeError } from "../bus/errors.js";
import type { Logger } from "../log/logger.js";
import type { Instruments } from "../metrics/instruments.js";
import { StageError } from "../pipeline/errors.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { Subjects } from "../wire/index.js";
import type { QueuedEvent } from "./brokerParts.js";
import { queueEvent, type QueueEventOptions, type QueueOutcome } from "./queueEvent.js";

/** How long queueing keeps retrying an event while the bus is unreachable (a NATS restart, say). */
const queueRetryMs = 30_000;

/** What queueing one event came to: what was queued (nothing when `afterIngress` dropped it), or why it was refused. */
export type Queued = { readonly ok: true; readonly queued: readonly QueuedEvent[] } | { readonly ok: false; readonly err: unknown };

export interface EventIntakeOptions {
  readonly pipeline: Pipeline;
  readonly bus: Bus;
  readonly subjects: Subjects;
  readonly logger: Logger;
  readonly instruments: Instruments;
  /** `[bus] partitions`. */
  readonly partitions: number;
  /** Retrying an append stops once this says false (the broker is stopping). */
  readonly running: () => boolean;
}

/** The stable `event rejected` line for an event `afterIngress` or the bus refused; it counts as dropped. */
function logRejected(logger: Logger, instruments: Instruments, event: GatewayEvent, err: unknown): void {
  const reason = err instanceof StageError ? "stage_failed" : err instanceof PayloadTooLargeError ? "payload_too_large" : "queue_failed";
  logger.warn({ reason, event_id: event.event_id, err }, "event rejected");
  instruments.events("dropped");
}

/**
 * Queues inbound events for their turns (the broker's `submit`, and the edge's events): runs the
 * `afterIngress` stage, then appends each resulting event on its partition's turn subject with
 * message id `platform:event_id`, logging a refusal and counting a drop or a duplicate.
 */
export class EventIntake {
  readonly #options: EventIntakeOptions;
  /** How events are queued on each partition, built on first use: the same for all of a partition's events. */
  readonly #queueing: QueueEventOptions[] = [];

  constructor(options: EventIntakeOptions) {
    this.#options = options;
  }

  /**
   * `queue` for the edge: the same appends, logs and counts, but `done` hears only that the event
   * is appended or refused (the edge reads nothing else), so nothing is built to say what was queued.
   */
  queueForEdge(event: GatewayEvent, key: string, done: () => void): void {
    if (this.#options.pipeline.isEmpty("afterIngress")) this.#appendItself(event, partitionOf(key, this.#options.partitions), done);
    else this.queue(event, key, () => done());
  }

  /** Nothing to run, drop or fan out: the event itself is appended on `partition`, a refusal logged and a duplicate counted. */
  #appendItself(event: GatewayEvent, partition: number, done: (outcome: QueueOutcome) => void): void {
    queueEvent(event, this.#queueOptions(partition), (outcome) => {
      if (!outcome.ok) logRejected(this.#options.logger, this.#options.instruments, event, outcome.err);
      else if (outcome.ack.duplicate) this.#options.instruments.events("duplicate");
      done(outcome);
    });
  }

  /**
   * `submit` on callbacks (no promise or stream per event): each value
   * `afterIngress` lets through is appended in turn, and `done` hears once what was queued, or
   * the stage's or the bus's error (logged here as `event rejected` with a stable reason). `key` is
   * the event's `sessionKey`, which the caller has already computed.
   */
  queue(event: GatewayEvent, key: string, done: (result: Queued) => void): void {
    const { pipeline, partitions, logger, instruments } = this.#options;
    if (pipeline.isEmpty("afterIngress")) {
      const partition = partitionOf(key, partitions);
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
      if (!result.ok) logRejected(logger, instruments, event, result.err);
      // Nothing queued and nothing refused: the stage dropped the event.
      else if (result.queued.length === 0) instruments.events("dropped");
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
        const partition = partitionOf(sessionKey(accepted), partitions);
        queueEvent(accepted, this.#queueOptions(partition), (outcome) => {
          if (!outcome.ok) {
            end({ ok: false, err: outcome.err });
            return;
          }
          queued.push({ event_id: accepted.event_id, partition, seq: outcome.ack.seq, duplicate: outcome.ack.duplicate });
          if (outcome.ack.duplicate) instruments.events("duplicate");
          appending = false;
          if (!synchronous) appendNext();
        });
        synchronous = false;
      }
    };
    pipeline.runValue("afterIngress", event, {
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
      bus: this.#options.bus,
      subject: this.#options.subjects.turn(partition),
      logger: this.#options.logger,
      retryForMs: queueRetryMs,
      stillRunning: this.#options.running,
    });
  }
}
