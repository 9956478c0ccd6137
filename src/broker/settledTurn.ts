import { catchError, concatMap, defer, EMPTY, endWith, from, ignoreElements, mergeMap, of, tap, type Observable } from "rxjs";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { PoolWaitTimeoutError } from "../acp/errors.js";
import type { Bus, DurableMessage } from "../bus/bus.js";
import type { Logger } from "../log/logger.js";
import { StageError } from "../pipeline/errors.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { Send } from "../pipeline/send.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import { isStateOutage } from "../state/errors.js";
import type { SettledTurn } from "./brokerParts.js";
import { collected } from "./collectedTurn.js";
import { AlreadyDeliveredError, NoAgentError } from "./errors.js";
import type { TurnHandler } from "./turn.js";
import { completeInLedger, ledgerKey, ledgerSend } from "./turnLedger.js";

/** What `settledTurn` emits when the turn must run again later. */
export const DEFERRED = "deferred" as const;

export interface SettledTurnOptions {
  /** Summary lines of messages the queue cap dropped (OpenClaw's overflow block). */
  readonly dropped: readonly string[];
  /** Prefix the first message with the recovered-reply marker. */
  readonly marked: boolean;
  readonly bus: Bus;
  readonly logger: Logger;
  readonly pipeline: Pipeline;
  readonly handler: TurnHandler | undefined;
  readonly send: Send;
  readonly messageLimit: (platform: string) => number;
  /** Absent on the embedded bus. */
  readonly ledger?: DeliveryLedger;
  /** How long a turn that could not reach shared state waits before it is tried again (logged; the caller waits). */
  readonly retryInMs: number;
  readonly onSettled: (turn: SettledTurn) => void;
}

/**
 * One turn on the worker, from `beforeDispatch` to the acks: runs the handler on the (collected)
 * event, counts what reached the gateway (recording it in the ledger), then settles — the ledger
 * says `complete` before the events are acked, so a redelivery after a crash right there is not
 * run again. A failed turn is settled and logged like a finished one and never stops the worker;
 * one that failed on shared state before anything reached the user emits `DEFERRED` instead and
 * settles nothing: the caller runs it again after `retryInMs`, still holding its events, so the
 * session's later events cannot overtake it.
 */
export function settledTurn(messages: readonly DurableMessage<GatewayEvent>[], options: SettledTurnOptions): Observable<typeof DEFERRED> {
  const { bus, ledger, retryInMs } = options;
  const first = messages[0] as DurableMessage<GatewayEvent>;
  const turnEvent = collected(messages.map((message) => message.data), options.dropped);
  const keys = messages.map((message) => ledgerKey(message.data));
  const started = bus.scheduler.now();
  const log = options.logger.child({ sessionKey: sessionKey(turnEvent), event_id: turnEvent.event_id });
  let delivered = 0;
  const counted: Send = (message) => options.send(message).pipe(tap(() => (delivered += 1)));
  const send =
    ledger === undefined
      ? counted
      : ledgerSend(counted, { ledger, keys, marked: options.marked, now: () => bus.scheduler.now(), messageLimit: options.messageLimit, logger: log });
  const work = options.pipeline.run("beforeDispatch", turnEvent).pipe(
    mergeMap((event) => {
      if (options.handler === undefined) throw new NoAgentError();
      log.debug({ deliveryCount: first.deliveryCount, collected: messages.length }, "turn started");
      const context = { send, scheduler: bus.scheduler, logger: log, messageLimit: options.messageLimit };
      return from(options.handler({ sessionKey: sessionKey(event), event }, context));
    }),
    ignoreElements(),
  );
  return work.pipe(
    endWith({ ok: true as const }),
    catchError((err: unknown) => of({ ok: false as const, err })),
    concatMap((outcome) => {
      // Shared state was unreachable before anything reached the user: run it again later rather than lose it.
      if (!outcome.ok && delivered === 0 && isStateOutage(outcome.err)) {
        log.warn({ reason: "state_unavailable", retryInMs, err: outcome.err }, "turn deferred");
        return of(DEFERRED);
      }
      const settle = () => {
        for (const message of messages) message.ack();
        // Answered by an earlier delivery of the same event: settled, not failed.
        const ok = outcome.ok || outcome.err instanceof AlreadyDeliveredError;
        options.onSettled({ sessionKey: sessionKey(turnEvent), event_id: turnEvent.event_id, ok });
        const durationMs = bus.scheduler.now() - started;
        if (outcome.ok) log.info({ durationMs }, "turn complete");
        else if (outcome.err instanceof AlreadyDeliveredError) log.info({ reason: "already_delivered", deliveryCount: first.deliveryCount, durationMs }, "completed turn not repeated");
        else log.error({ reason: failureReason(outcome.err), err: outcome.err, durationMs }, "turn failed");
      };
      if (ledger === undefined) return defer(() => (settle(), EMPTY));
      return completeInLedger(keys, { ledger, now: bus.scheduler.now(), logger: log }).pipe(tap(settle), ignoreElements());
    }),
  );
}

function failureReason(err: unknown): string {
  if (err instanceof StageError) return "stage_failed";
  if (err instanceof NoAgentError) return "no_agent";
  if (err instanceof PoolWaitTimeoutError) return "pool_wait_timeout";
  return "turn_failed";
}
