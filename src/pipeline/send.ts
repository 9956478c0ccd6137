import { randomUUID } from "node:crypto";
import { catchError, concatMap, defer, map, retry, throwError, timer, type Observable } from "rxjs";
import type { Bus } from "../bus/bus.js";
import { BusTimeoutError, NoRespondersError } from "../bus/errors.js";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import { SEND_ID_HEADER, SendError, sendReplySchema, type Subjects } from "../wire/index.js";
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
}

/** Sends one message: emits its receipt, or nothing when a `beforeSend` operator dropped it. */
export type Send = (message: OutboundMessage) => Observable<SendReceipt>;

/**
 * A send runs the `beforeSend` stage, then asks whichever edge serves the platform to post each
 * resulting message, one after another, and fails with `SendError` when any is not posted.
 */
export function createSender({ bus, subjects, pipeline, timeoutMs, retries = 0 }: SenderOptions): Send {
  const sendOne = (message: OutboundMessage): Observable<SendReceipt> =>
    defer(() => {
      const headers = { [SEND_ID_HEADER]: randomUUID() };
      return bus.request<OutboundMessage, unknown>(subjects.send(message.platform), message, { timeoutMs, headers }).pipe(
        retry({
          count: retries,
          delay: (err: unknown, attempt: number) =>
            err instanceof NoRespondersError || err instanceof BusTimeoutError ? timer(1_000 * attempt, bus.scheduler) : throwError(() => err),
        }),
      );
    }).pipe(
      map((raw) => {
        const reply = sendReplySchema.safeParse(raw);
        if (!reply.success) throw new SendError("bad_reply", "the edge answered a send with a malformed reply");
        // An edge relays the gateway's words; bounded again here (a no-op for a current edge) since the bus is a boundary too.
        if (!reply.data.ok) throw new SendError(untrustedText(reply.data.code, { maxChars: 64 }), untrustedText(reply.data.error, { maxChars: 1_000 }));
        return { messageId: reply.data.messageId };
      }),
      catchError((err: unknown) => throwError(() => asSendError(err, message.platform))),
    );
  return (message) => pipeline.run("beforeSend", message).pipe(concatMap(sendOne));
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
