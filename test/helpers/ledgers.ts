import { defer, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { DurableMessage } from "../../src/bus/bus.js";
import { MemoryDeliveryLedger, type DeliveryLedger } from "../../src/state/deliveryLedger.js";
import { ledgerKey } from "../../src/turn/turnLedger.js";
import type { IntakeMessage } from "../../src/worker/partitionIntake.js";

/** A ledger that notes every operation it is asked to do (on subscription), as `method key`. */
export function countingLedger(inner: DeliveryLedger = new MemoryDeliveryLedger()): { ledger: DeliveryLedger; ops: string[] } {
  const ops: string[] = [];
  const noted = <T>(op: string, work: () => Observable<T>) => defer(() => (ops.push(op), work()));
  const ledger: DeliveryLedger = {
    read: (key) => noted(`read ${key}`, () => inner.read(key)),
    begin: (key, now) => noted(`begin ${key}`, () => inner.begin(key, now)),
    delivered: (key, count, now, kept) => noted(`delivered ${key}`, () => inner.delivered(key, count, now, kept)),
    complete: (key, now) => noted(`complete ${key}`, () => inner.complete(key, now)),
  };
  return { ledger, ops };
}

/** A held delivery of `event` (the `deliveryCount`th), noting its acks. */
export function held(event: GatewayEvent, deliveryCount: number): IntakeMessage<GatewayEvent> & { acks: () => number } {
  let acks = 0;
  const message: DurableMessage<GatewayEvent> = {
    subject: "turnstream.turn.0",
    data: event,
    headers: {} as DurableMessage<GatewayEvent>["headers"],
    seq: 1,
    deliveryCount,
    msgId: ledgerKey(event),
    ack: () => void (acks += 1),
    nak: () => undefined,
    working: () => undefined,
    claim: () => undefined,
  } as DurableMessage<GatewayEvent>;
  return { message, partition: 0, epoch: 1, receivedAt: 0, acks: () => acks };
}

