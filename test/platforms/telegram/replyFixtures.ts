import type { OutboundChoice, OutboundCommand, OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../../src/wire/index.js";

/** A reply (or, with `command`, a command) to a chat, as the worker hands it to the port. */
export function reply(chat: number, text: string, fields: { thread?: number; reply_to?: string; quote?: string; command?: OutboundCommand; choices?: readonly OutboundChoice[]; plainText?: true } = {}): OutboundMessage {
  return {
    reply_to: fields.reply_to ?? "tg1",
    platform: "telegram",
    channel: { id: String(chat), ...(fields.thread === undefined ? {} : { thread_id: String(fields.thread) }) },
    content: { type: "text", text },
    ...(fields.quote === undefined ? {} : { quote_message_id: fields.quote }),
    ...(fields.command === undefined ? {} : { command: fields.command }),
    ...(fields.choices === undefined ? {} : { choices: fields.choices }),
    ...(fields.plainText === undefined ? {} : { plainText: fields.plainText }),
  };
}

/** The SendError a send is refused with (fails the test if it succeeds or fails otherwise). */
export async function refusedWith(sending: Promise<SendReceipt>): Promise<SendError> {
  const outcome = await sending.then(
    (receipt) => receipt,
    (err: unknown) => err,
  );
  if (outcome instanceof SendError) return outcome;
  throw new Error(`expected a SendError, got ${JSON.stringify(outcome)}`);
}
