import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { DurableMessage } from "../bus/bus.js";
import { collected } from "../turn/collectedTurn.js";
import type { TurnBatch } from "../turn/turn.js";

/** Summary lines of messages the queue cap dropped, and whether to mark a recovered re-run. */
export interface TurnShape {
  readonly dropped: readonly string[];
  readonly marked: boolean;
  /** When the oldest of the turn's events reached this worker (bus clock, ms): where its first message is timed from. */
  readonly receivedAt?: number;
  /**
   * Under OpenAB batching: the lane and when each message reached the worker (bus clock). The turn
   * then runs on its last message with the others as its batch, instead of OpenClaw's collect prompt.
   */
  readonly batch?: { readonly laneKey: string; readonly receivedAt: readonly number[] };
}

/**
 * The event a turn runs on: under OpenAB batching its last message; otherwise the message itself,
 * or OpenClaw's collect prompt when there are several or the cap dropped some.
 */
export function turnEventOf(messages: readonly DurableMessage<GatewayEvent>[], shape: TurnShape): GatewayEvent {
  const last = (messages[messages.length - 1] as DurableMessage<GatewayEvent>).data;
  if (shape.batch !== undefined || (messages.length === 1 && shape.dropped.length === 0)) return last;
  return collected(
    messages.map((message) => message.data),
    shape.dropped,
  );
}

/** Under OpenAB batching, what the turn's handler is told besides its last message: the others, and how long each waited by `startedAt` (bus clock). */
export function turnBatchOf(messages: readonly DurableMessage<GatewayEvent>[], shape: TurnShape, startedAt: number): TurnBatch | undefined {
  if (shape.batch === undefined) return undefined;
  const { laneKey, receivedAt } = shape.batch;
  return {
    earlier: messages.slice(0, -1).map((message) => message.data),
    dropped: shape.dropped,
    laneKey,
    waitMs: receivedAt.map((at) => startedAt - at),
  };
}
