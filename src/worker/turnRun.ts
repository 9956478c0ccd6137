import { from, Subscription, tap, type Unsubscribable } from "rxjs";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { triageEvent } from "../../operators/triage/triageEvent.js";
import { triageLogLine } from "../../operators/triage/triageLog.js";
import type { TriageVerdict } from "../../operators/triage/triageVerdict.js";
import { PoolWaitTimeoutError } from "../acp/errors.js";
import type { Bus, DurableMessage } from "../bus/bus.js";
import type { Logger } from "../log/logger.js";
import { StageError } from "../pipeline/errors.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { Send } from "../pipeline/send.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import { isStateOutage } from "../state/errors.js";
import type { SettledTurn, TurnTriage } from "../broker/brokerParts.js";
import { collected } from "../broker/collectedTurn.js";
import { AlreadyDeliveredError, NoAgentError } from "../broker/errors.js";
import type { TurnContext, TurnHandler } from "../broker/turn.js";
import { triageLogMessage } from "../broker/triageLogMessages.js";
import { completeInLedger, ledgerKey, ledgerSend } from "../broker/turnLedger.js";

export interface TurnRunOptions {
  readonly bus: Bus;
  readonly logger: Logger;
  readonly pipeline: Pipeline;
  readonly handler: TurnHandler | undefined;
  readonly send: Send;
  readonly messageLimit: (platform: string) => number;
  /** Absent on the embedded bus. */
  readonly ledger?: DeliveryLedger;
  readonly triage?: TurnTriage;
  /** How long a turn that could not reach shared state waits before it is tried again (logged; the caller waits). */
  readonly retryInMs: number;
  readonly onSettled: (turn: SettledTurn) => void;
}

/** How a turn ended: its events settled (acked), or deferred — nothing settled, run it again later. */
export type TurnEnd = "settled" | "deferred";

/** Summary lines of messages the queue cap dropped, and whether to mark a recovered re-run. */
export interface TurnShape {
  readonly dropped: readonly string[];
  readonly marked: boolean;
}

/**
 * One turn on the worker, from `beforeDispatch` to the acks, driven by callbacks so an event costs
 * no stream of its own: the (collected) event runs through `beforeDispatch` (nothing is built for
 * an empty stage), each value it lets through is triaged when proactive and handed to the handler
 * (several at once when the stage fans out), and once the stage and every handler are done the
 * turn settles — the ledger says `complete` before the events are acked, so a redelivery after a
 * crash right there is not run again. Whatever the stage dropped or failed on settles the same
 * way, exactly once. A failed turn is settled and logged like a finished one; one that failed on
 * shared state before anything reached the user ends `deferred` and settles nothing (the caller
 * runs it again, still holding its events). `done` is called exactly once, unless the returned
 * subscription is unsubscribed first (the worker stopping), which cancels the running work.
 */
export function runTurn(
  messages: readonly DurableMessage<GatewayEvent>[],
  shape: TurnShape,
  options: TurnRunOptions,
  done: (end: TurnEnd) => void,
): Unsubscribable {
  const { bus, ledger, logger } = options;
  const turnEvent = collected(
    messages.map((message) => message.data),
    shape.dropped,
  );
  const key = sessionKey(turnEvent);
  const startedAt = bus.scheduler.now();
  // Bound only when a line is written or the handler asks: a pino child costs more than the rest of an instant turn.
  let child: Logger | undefined;
  const log = (): Logger => (child ??= logger.child({ sessionKey: key, event_id: turnEvent.event_id }));
  let delivered = 0;
  const counted: Send = (message) => options.send(message).pipe(tap(() => (delivered += 1)));
  const keys = ledger === undefined ? [] : messages.map((message) => ledgerKey(message.data));
  const send =
    ledger === undefined
      ? counted
      : ledgerSend(counted, { ledger, keys, marked: shape.marked, now: () => bus.scheduler.now(), messageLimit: options.messageLimit, logger: log() });
  const context: TurnContext = {
    send,
    scheduler: bus.scheduler,
    get logger() {
      return log();
    },
    messageLimit: options.messageLimit,
  };

  /** The whole run, for the caller to cancel; `work` is what a failure cancels (the ledger write after it is not). */
  const outer = new Subscription();
  const work = new Subscription();
  outer.add(work);
  let ended = false;
  let stageOpen = true;
  /** Values the stage let through whose triage or handler has not finished. */
  let running = 0;

  const settle = (ok: boolean, err?: unknown): void => {
    for (const message of messages) message.ack();
    // Answered by an earlier delivery of the same event (re-sent after the duplicate window): settled, not failed.
    const repeated = err instanceof AlreadyDeliveredError;
    options.onSettled({ sessionKey: key, event_id: turnEvent.event_id, ok: ok || repeated });
    const durationMs = bus.scheduler.now() - startedAt;
    if (ok) logger.info({ sessionKey: key, event_id: turnEvent.event_id, durationMs }, "turn complete");
    else if (repeated) log().info({ reason: "already_delivered", deliveryCount: messages[0]?.deliveryCount, durationMs }, "completed turn not repeated");
    else log().error({ reason: failureReason(err), err, durationMs }, "turn failed");
    done("settled");
  };

  const end = (ok: boolean, err?: unknown): void => {
    if (ended) return;
    ended = true;
    work.unsubscribe(); // a failure cancels the turn's other work (a fanned-out value's handler)
    // Shared state was unreachable before anything reached the user: run it again later rather than lose it.
    if (!ok && delivered === 0 && isStateOutage(err)) {
      log().warn({ reason: "state_unavailable", retryInMs: options.retryInMs, err }, "turn deferred");
      done("deferred");
      return;
    }
    if (ledger === undefined) {
      settle(ok, err);
      return;
    }
    outer.add(completeInLedger(keys, { ledger, now: bus.scheduler.now(), logger: log() }).subscribe({ complete: () => settle(ok, err) }));
  };
  const endIfIdle = (): void => {
    if (!stageOpen && running === 0) end(true);
  };
  const finished = (): void => {
    running -= 1;
    endIfIdle();
  };

  const handle = (event: GatewayEvent): void => {
    const { handler } = options;
    if (handler === undefined) {
      end(false, new NoAgentError());
      return;
    }
    if (logger.isLevelEnabled("debug")) log().debug({ deliveryCount: messages[0]?.deliveryCount, collected: messages.length }, "turn started");
    let result;
    try {
      result = from(handler({ sessionKey: sessionKey(event), event }, context));
    } catch (err) {
      end(false, err);
      return;
    }
    work.add(result.subscribe({ error: (err: unknown) => end(false, err), complete: finished }));
  };

  const triaged = (event: GatewayEvent, verdict: TriageVerdict): void => {
    const fields = triageLogLine({ event, verdict });
    if (fields !== undefined) log().info(fields, triageLogMessage(fields));
    if (verdict.decision === "wake") handle(event);
    else finished();
  };

  const dispatch = (event: GatewayEvent): void => {
    if (ended) return;
    running += 1;
    const { triage } = options;
    if (triage === undefined || event.proactive !== true) {
      handle(event);
      return;
    }
    work.add(
      triageEvent(event, { ...triage, scheduler: bus.scheduler }).subscribe({
        next: (verdict) => triaged(event, verdict),
        error: (err: unknown) => end(false, err),
      }),
    );
  };

  const stage = options.pipeline.runValue("beforeDispatch", turnEvent, {
    next: dispatch,
    error: (err) => end(false, err),
    complete: () => {
      stageOpen = false;
      endIfIdle();
    },
  });
  if (stage !== undefined) work.add(stage);
  return outer;
}

function failureReason(err: unknown): string {
  if (err instanceof StageError) return "stage_failed";
  if (err instanceof NoAgentError) return "no_agent";
  if (err instanceof PoolWaitTimeoutError) return "pool_wait_timeout";
  return "turn_failed";
}
