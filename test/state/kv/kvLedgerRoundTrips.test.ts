import type { KV } from "@nats-io/kv";
import { firstValueFrom, lastValueFrom, map, of } from "rxjs";
import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { DurableMessage } from "../../../src/bus/bus.js";
import { replyMessage } from "../../../src/turn/delivery/replyMessage.js";
import { completeInLedger, ledgerKey, ledgerSend } from "../../../src/turn/turnLedger.js";
import { admitByLedger } from "../../../src/worker/ledgerAdmission.js";
import type { Send } from "../../../src/pipeline/send.js";
import { KvDeliveryLedger } from "../../../src/state/kv/kvDeliveryLedger.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { gatewayEvent } from "../../helpers/events.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { natsKvFixture } from "./natsKv.js";

const COUNTED = new Set(["get", "create", "update", "put", "delete", "purge"]);

/** The bucket, noting each KV operation (one round trip to the server each) by name. */
function counted(kv: KV): { kv: KV; ops: string[] } {
  const ops: string[] = [];
  const proxy = new Proxy(kv, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !COUNTED.has(property) || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        ops.push(property);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { kv: proxy, ops };
}

/**
 * What the worker asks of the ledger for one event, in order: admission, the turn's `sends`
 * messages through `ledgerSend` (a gateway that acks at once), `complete`.
 */
async function turn(ledger: KvDeliveryLedger, event: GatewayEvent, deliveryCount: number, sends: number): Promise<void> {
  const { logger } = captureLogs();
  const message = { data: event, deliveryCount, ack: () => undefined } as unknown as DurableMessage<GatewayEvent>;
  const admission = await firstValueFrom(admitByLedger([{ message, partition: 0, epoch: 1, receivedAt: 0 }], { ledger, now: 1, logger, retryInMs: 1_000 }));
  expect(admission.run).toHaveLength(1);
  const gateway: Send = () => of({ messageId: "m" });
  const send = ledgerSend(gateway, { ledger, keys: [ledgerKey(event)], now: () => 2, marked: admission.marked, messageLimit: () => 4_000, logger });
  for (let n = 0; n < sends; n++) await lastValueFrom(send(replyMessage(event, `part ${n}`, undefined)).pipe(map(() => undefined)));
  await lastValueFrom(completeInLedger([ledgerKey(event)], { ledger, now: 3, logger: () => logger }));
}

describe.skipIf(!natsServerAvailable())("the delivery ledger's KV round trips per event (real nats-server)", () => {
  const nats = natsKvFixture();

  it("first delivery, a turn that sends nothing: one write (complete creates the record), no read", async () => {
    const { kv, ops } = counted((await nats.bucket()).kv);
    await turn(new KvDeliveryLedger(kv), gatewayEvent({ event_id: "quiet" }), 1, 0);
    expect(ops).toEqual(["create"]);
  });

  it("first delivery, a turn that sends two messages: started before the first send, one write per ack, complete", async () => {
    const { kv, ops } = counted((await nats.bucket()).kv);
    await turn(new KvDeliveryLedger(kv), gatewayEvent({ event_id: "chatty" }), 1, 2);
    expect(ops).toEqual(["create", "update", "update", "update"]);
  });

  it("a redelivery on another worker: one read, then its writes over the revision it read", async () => {
    const { kv: raw, name } = await nats.bucket();
    const event = gatewayEvent({ event_id: "again" });
    await firstValueFrom(new KvDeliveryLedger(raw).begin(ledgerKey(event), 1)); // the first worker died after `started`
    const { kv, ops } = counted(await nats.open(await nats.connect(), name));
    await turn(new KvDeliveryLedger(kv), event, 2, 1);
    expect(ops).toEqual(["get", "update", "update", "update"]);
  });
});
