import { randomUUID } from "node:crypto";
import { concatMap, Observable, retry, throwError, timer } from "rxjs";
import type { Bus } from "../bus/bus.js";
import { BusTimeoutError, NoRespondersError } from "../bus/errors.js";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import { SEND_ID_HEADER, SendError, SKIPPED_MESSAGE_ID, sendReplySchema, type Subjects } from "../wire/index.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import { messageKind } from "../metrics/metricLabels.js";
import type { Pipeline } from "./pipeline.js";

export interface SenderOptions {
  readonly bus: Bus;
  readonly subjects: Subjects;
  readonly pipeline: Pipeline;
  /** How long to wait for the edge's answer; longer than the gateway ack timeout it waits for. */
  readonly timeoutMs: number;
  /**
   * Asks again this many times when no edge answered (nobody listening, or the answer was lost —
   * a bus between servers). Each request carries a `Turnstream-Send-Id` header, so the edge that
   * posted the first one answers a retry from its record instead of posting twice. Default 0.
   */
  readonly retries?: number;
  /** Counts each send by kind with its ack latency, and each failure by reason (default: nothing). */
  readonly instruments?: Instruments;
}

/** Sends one message: emits its receipt, or nothing when a `beforeSend` operator dropped it. */
export type Send = (message: OutboundMessage) => Observable<SendReceipt>;

/**
 * A send runs the `beforeSend` stage, then asks whichever edge serves the platform to post each
 * resulting message, one after another, and fails with `SendError` when any is not posted.
 */
export function createSender({ bus, subjects, pipeline, timeoutMs, retries = 0, instruments = noInstruments }: SenderOptions): Send {
  const retried = retry<unknown>({
    count: retries,
    delay: (err: unknown, attempt: number) =>
      err instanceof NoRespondersError || err instanceof BusTimeoutError ? timer(1_000 * attempt, bus.scheduler) : throwError(() => err),
  });
  // Hand-written: one Observable per message on the bubble path, where defer + map + catchError
  // were three and their subscribers. Cold like them: each subscription asks with a fresh send id,
  // and its retries keep that id.
  const sendOne = (message: OutboundMessage): Observable<SendReceipt> =>
    new Observable<SendReceipt>((subscriber) => {
      const headers = { [SEND_ID_HEADER]: randomUUID() };
      const askedAt = bus.scheduler.now();
      const failed = (err: unknown): void => {
        instruments.sendFailed(err instanceof SendError ? err.code : "send_failed");
        subscriber.error(err);
      };
      return bus
        .request<OutboundMessage, unknown>(subjects.send(message.platform), message, { timeoutMs, headers })
        .pipe(retried)
        .subscribe({
          next: (raw) => {
            let receipt: SendReceipt;
            try {
              receipt = receiptOf(raw);
            } catch (err) {
              failed(err);
              return;
            }
            // A reaction the platform cannot show was not posted: nothing to count.
            if (receipt.messageId !== SKIPPED_MESSAGE_ID) instruments.messageSent(messageKind(message.command), (bus.scheduler.now() - askedAt) / 1000);
            subscriber.next(receipt);
          },
          error: (err: unknown) => failed(asSendError(err, message.platform)),
          complete: () => subscriber.complete(),
        });
    });
  // An empty beforeSend stage (the usual case) builds no stream around the message.
  return (message) => (pipeline.isEmpty("beforeSend") ? sendOne(message) : pipeline.run("beforeSend", message).pipe(concatMap(sendOne)));
}

/** The edge's answer as a receipt; throws `SendError` for a refusal or an answer that is not a send reply. */
function receiptOf(raw: unknown): SendReceipt {
  const reply = sendReplySchema.safeParse(raw);
  if (!reply.success) throw new SendError("bad_reply", "the edge answered a send with a malformed reply");
  // An edge relays the gateway's words; bounded again here (a no-op for a current edge) since the bus is a boundary too.
  if (!reply.data.ok) throw new SendError(untrustedText(reply.data.code, { maxChars: 64 }), untrustedText(reply.data.error, { maxChars: 1_000 }));
  return { messageId: reply.data.messageId };
}

function asSendError(err: unknown, platform: string): unknown {
  if (err instanceof NoRespondersError) {
    return new SendError("no_gateway", `no gateway connection serves platform ${platform}`, { cause: err });
  }
  if (err instanceof BusTimeoutError) {
    return new SendError("timeout", `no answer from the edge for platform ${platform}`, { cause: err });
  }
  return err;
}
