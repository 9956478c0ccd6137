import { tap, type SchedulerLike } from "rxjs";
import { sendClassOf } from "../../operators/delivery/flow/sendClass.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import type { Send, SendOptions } from "../pipeline/send.js";
import { ledgerSend, type LedgerSendOptions } from "../turn/turnLedger.js";

/** The broker's send, told what the turn's sends are for their rate limits (a reply to a person or proactive, in a group or not). */
export function classedSend(send: Send, event: GatewayEvent): Send {
  const sendClass = sendClassOf(event);
  const classed: SendOptions = { sendClass };
  return (message, options) => send(message, options === undefined ? classed : { ...options, sendClass });
}

/** Counts what reached the gateway (a deferral is only safe when nothing did), recording it in the ledger when there is one. */
export function turnSender(classed: Send, acked: AckedSends, ledger: LedgerSendOptions | undefined): Send {
  const counted: Send = (message, options) => classed(message, options).pipe(tap(() => acked.acked(message.command === undefined)));
  return ledger === undefined ? counted : ledgerSend(counted, ledger);
}

/** A turn's sends the gateway acked: how many, and the times its instruments take of them. */
export class AckedSends {
  #count = 0;
  /** When the turn's last new message was acked (for the gap to the next one); undefined before its first. */
  #lastMessageAt: number | undefined;

  constructor(
    readonly instruments: Instruments,
    readonly scheduler: SchedulerLike,
    /** Where the turn's first message is timed from (bus clock). */
    readonly from: number,
  ) {}

  get count(): number {
    return this.#count;
  }

  /** One send of the turn acked: the first times the turn's first message, each further new message the gap since the last. */
  acked(newMessage: boolean): void {
    const { instruments } = this;
    this.#count += 1;
    if (instruments === noInstruments) return;
    const now = this.scheduler.now();
    if (this.#count === 1) instruments.firstMessage((now - this.from) / 1000);
    if (!newMessage) return;
    if (this.#lastMessageAt !== undefined) instruments.bubbleGap((now - this.#lastMessageAt) / 1000);
    this.#lastMessageAt = now;
  }
}
