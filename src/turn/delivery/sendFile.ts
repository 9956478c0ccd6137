import { catchError, defer, type Observable } from "rxjs";
import type { FileReadyEvent } from "../../../operators/delivery/agentEvent.js";
import { fileNotice } from "../../../operators/delivery/files/fileNotice.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { SendError } from "../../wire/sendError.js";
import type { TurnContext } from "../turn.js";
import { FILE_NOT_SENT_LOG } from "./deliveryLogMessages.js";
import { replyMessage } from "./replyMessage.js";

/**
 * Posts one of the turn's files into the event's conversation, as one message: the file with its
 * caption, or — for a file that cannot go (`refused`), and one the platform refuses as too big —
 * the one line that names it and its size. Counted, paced and rate-limited like any message.
 */
export function sendFile(context: TurnContext, event: GatewayEvent, file: FileReadyEvent, departing?: () => void): Observable<SendReceipt> {
  const options = departing === undefined ? undefined : { departing };
  const notice = (): Observable<SendReceipt> => context.send(replyMessage(event, noticeText(file), undefined), options);
  return defer(() => {
    if (file.ready.kind === "refused") return notice();
    return context.send(fileMessage(event, file, file.ready), options).pipe(
      catchError((err: unknown) => {
        if (!(err instanceof SendError) || err.code !== "file_too_large") throw err;
        context.logger.warn({ reason: "file_too_large", platform: event.platform, size: file.size }, FILE_NOT_SENT_LOG);
        return notice();
      }),
    );
  });
}

function fileMessage(event: GatewayEvent, file: FileReadyEvent, stored: Extract<FileReadyEvent["ready"], { kind: "stored" }>): OutboundMessage {
  return {
    ...replyMessage(event, file.caption, undefined),
    attachment: { filename: file.filename, mime_type: stored.mimeType, size: file.size, kind: stored.image ? "image" : "document", ref: stored.ref },
  };
}

function noticeText(file: FileReadyEvent): string {
  const line = fileNotice(file.filename, file.size);
  return file.caption === "" ? line : `${line}\n${file.caption}`;
}
