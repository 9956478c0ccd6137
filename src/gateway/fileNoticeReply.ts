import type { OutboundAttachment, OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { fileNotice } from "../../operators/delivery/files/fileNotice.js";

/**
 * What a platform that takes no files gets instead of a send with an `attachment`: one plain text
 * message, the file's notice line (`📎 report.pdf (2.1 MB) could not be sent here`) and its caption
 * after a newline when there is one. Never the bytes.
 */
export function fileNoticeReply(message: OutboundMessage, attachment: OutboundAttachment): OutboundMessage {
  const { attachment: _file, ...rest } = message;
  const notice = fileNotice(attachment.filename, attachment.size);
  const caption = message.content.text;
  return { ...rest, content: { type: "text", text: caption === "" ? notice : `${notice}\n${caption}` } };
}
