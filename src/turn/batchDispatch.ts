import { batchTokens } from "../../operators/dispatch/batchTokens.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { TurnBatch, TurnContext } from "./turn.js";

/**
 * One batched turn (OpenAB's `per-thread` / `per-lane`) as upstream reports it: once the turn is
 * over, whatever its outcome, one `batch dispatched` line with upstream's fields — the lane, how
 * many arrivals and prompt blocks, how long the turn took, each arrival's token estimate and wait,
 * and the senders' names.
 */
export class BatchDispatch {
  readonly batch: TurnBatch;
  readonly #event: GatewayEvent;
  readonly #context: TurnContext;
  readonly #startedAt: number;
  #blocks = 0;
  #logged = false;

  constructor(event: GatewayEvent, batch: TurnBatch, context: TurnContext) {
    this.batch = batch;
    this.#event = event;
    this.#context = context;
    this.#startedAt = context.scheduler.now();
  }

  /** Every arrival of the batch, oldest first: the turn's event last. */
  get events(): GatewayEvent[] {
    return [...this.batch.earlier, this.#event];
  }

  /** The prompt went out with `count` blocks. */
  packed(count: number): void {
    this.#blocks = count;
  }

  /** The turn is over: the line, once. */
  done(): void {
    if (this.#logged) return;
    this.#logged = true;
    const { batch } = this;
    const events = this.events;
    this.#context.logger.info(
      {
        thread_key: batch.laneKey,
        events_per_dispatch: events.length,
        packed_block_count: this.#blocks,
        agent_dispatch_ms: this.#context.scheduler.now() - this.#startedAt,
        tokens_per_event: events.map(batchTokens),
        wait_ms: batch.waitMs,
        senders: events.map(senderName),
      },
      "batch dispatched",
    );
  }
}

/** The sender's name as a chat shows it: display name, else name, else id. */
function senderName(event: GatewayEvent): string {
  return event.sender.display_name || event.sender.name || event.sender.id;
}
