import { InputFile, type Api } from "grammy";
import type { ReplyParameters } from "grammy/types";
import { TELEGRAM_PHOTO_BYTES } from "../../../operators/delivery/files/index.js";
import type { OutboundAttachment, OutboundChoice, OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { Logger } from "../../log/logger.js";
import { SendError } from "../../wire/index.js";
import { botApiFailure } from "./botApiFailure.js";
import type { GrammySignal } from "./grammySignal.js";
import { isPhotoRefusal } from "./photoRefusal.js";
import { uploadFileName } from "./uploadFileName.js";

/** Telegram's limit on a photo's or document's caption, in characters once its Markdown is parsed. */
export const TELEGRAM_CAPTION_LIMIT = 1024;

/** Where a file goes and how its caption is read: as a text message of the same send would. */
export interface FileSend {
  readonly chat: number | string;
  /** The topic (`message_thread_id`) and the quote (`reply_parameters`), as for `sendMessage`. */
  readonly where: { readonly message_thread_id?: number; readonly reply_parameters?: ReplyParameters };
  /** The reply's deadline, for each call. */
  readonly signal: () => GrammySignal;
  /** The call with the caption read as the message is: Markdown first and again without it on a parse error, or as written (`plainText`). */
  formatted<T>(call: (markdown: { parse_mode?: "Markdown" }) => Promise<T>): Promise<T>;
  /** Sends the caption as a text message of its own, quoting the file's message; rejects with a `SendError`. */
  captionApart(fileMessageId: string): Promise<SendReceipt>;
}

/**
 * Whether a file's caption goes as a message of its own after the file, rather than on it: when it
 * is longer than a caption may be (counted before its Markdown is parsed, which only shortens it,
 * so one that fits never fails as too long), or when the message has buttons, which are taken away
 * once answered with `editMessageText`, a call for text messages.
 */
export function captionGoesApart(caption: string, choices: readonly OutboundChoice[] | undefined): boolean {
  return [...caption].length > TELEGRAM_CAPTION_LIMIT || (choices !== undefined && choices.length > 0);
}

/**
 * A message with a file as Bot API calls, uploaded with grammY's `InputFile` under the file's name:
 * a picture (`kind: "image"`) of at most `TELEGRAM_PHOTO_BYTES` as `sendPhoto`, anything else as
 * `sendDocument`, and a picture Telegram refuses as a photo (`isPhotoRefusal`) again as a document.
 * The text is the caption, read as a message's text is; one that cannot be a caption
 * (`captionGoesApart`) follows as a text message quoting the file. The receipt is the file's message.
 */
export class FileReplies {
  readonly #api: Api;
  readonly #logger: Logger;
  readonly #sendError: (method: string, err: unknown) => SendError;

  /** `sendError`: a failed call as the gateway's ack would name it, logged. */
  constructor(api: Api, logger: Logger, sendError: (method: string, err: unknown) => SendError) {
    this.#api = api;
    this.#logger = logger;
    this.#sendError = sendError;
  }

  /** Posts `message` with its `attachment`, whose bytes are `file`. */
  async send(message: OutboundMessage, attachment: OutboundAttachment, file: Uint8Array, send: FileSend): Promise<SendReceipt> {
    const text = message.content.text;
    const apart = captionGoesApart(text, message.choices);
    const posted = await this.#post(attachment, file, apart ? "" : text, send);
    if (!apart) return posted;
    try {
      await send.captionApart(posted.messageId);
    } catch (err) {
      // The file is in the chat: the send as a whole must not go again, or the file would be there twice.
      throw new SendError("unknown", `the file was posted (message ${posted.messageId}) but its caption was not: ${(err as Error).message}`, { cause: err });
    }
    return posted;
  }

  async #post(attachment: OutboundAttachment, file: Uint8Array, caption: string, send: FileSend): Promise<SendReceipt> {
    if (attachment.kind === "image" && file.length <= TELEGRAM_PHOTO_BYTES) {
      try {
        return await this.#upload("sendPhoto", attachment.filename, file, caption, send);
      } catch (err) {
        const failure = botApiFailure(err);
        if (!isPhotoRefusal(failure)) throw this.#sendError("sendPhoto", err);
        this.#logger.warn({ reason: "photo_refused", status: failure.status, description: failure.description }, "telegram refused a picture as a photo; sent as a document");
      }
    }
    try {
      return await this.#upload("sendDocument", attachment.filename, file, caption, send);
    } catch (err) {
      throw this.#sendError("sendDocument", err);
    }
  }

  /** One upload, a fresh `InputFile` for each call (a Markdown retry uploads the bytes again). */
  #upload(method: "sendPhoto" | "sendDocument", filename: string, file: Uint8Array, caption: string, send: FileSend): Promise<SendReceipt> {
    const call = (markdown: { parse_mode?: "Markdown" }) => {
      const input = new InputFile(file, uploadFileName(filename));
      const other = { ...send.where, ...(caption === "" ? {} : { caption, ...markdown }) };
      const sent = method === "sendPhoto" ? this.#api.sendPhoto(send.chat, input, other, send.signal()) : this.#api.sendDocument(send.chat, input, other, send.signal());
      return sent.then((message) => ({ messageId: String(message.message_id) }));
    };
    return caption === "" ? call({}) : send.formatted(call);
  }
}
