import type { APIAttachment } from "@discordjs/core";
import { formatAttachmentSize } from "../../../operators/ingress/prompt/attachmentBlock.js";
import { sizeExceeded, type PlannedFile, type UrlDownload } from "../boundedDownload.js";
import { isImageFile, isTextFile, MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES, MAX_TEXT_FILE_BYTES, MAX_TEXT_FILES, MAX_TEXT_TOTAL_BYTES, stripMimeParams } from "../fileKinds.js";
import { MAX_AUDIO_BYTES } from "../../stt/speechToText.js";



/**
 * A message's attachments as OpenAB's Discord adapter takes them (§2.7), in message order: audio
 * (`audio/*`) for `[stt]` (≤ 25 MiB), text files by MIME type, extension or name (at most 5, 512 KiB
 * each, 1 MiB together), images by `image/*` or extension (≤ 10 MiB); anything else, which upstream
 * refuses, is a `file` (≤ `MAX_DOCUMENT_BYTES`), embedded in the prompt when the agent takes one.
 */
export function planAttachments(attachments: readonly APIAttachment[]): PlannedFile[] {
  let textFiles = 0;
  let textBytes = 0;
  return attachments.map((attachment): PlannedFile => {
    const mime = stripMimeParams(attachment.content_type ?? "").toLowerCase();
    const name = attachment.filename;
    if (mime.startsWith("audio/")) return planned(attachment, "audio", mime, MAX_AUDIO_BYTES);
    if (isTextFile(mime, name)) {
      if (textFiles >= MAX_TEXT_FILES) return rejected(attachment, "text_file", mime, `too many files: at most ${MAX_TEXT_FILES} text files a message`);
      if (textBytes + attachment.size > MAX_TEXT_TOTAL_BYTES) return rejected(attachment, "text_file", mime, `size exceeded: text files over ${formatAttachmentSize(MAX_TEXT_TOTAL_BYTES)} together`);
      textFiles += 1;
      textBytes += attachment.size;
      return planned(attachment, "text_file", mime === "" ? "text/plain" : mime, MAX_TEXT_FILE_BYTES);
    }
    if (isImageFile(mime, name)) return planned(attachment, "image", mime === "" ? "image/png" : mime, MAX_IMAGE_BYTES);
    return planned(attachment, "file", mime === "" ? "application/octet-stream" : mime, MAX_DOCUMENT_BYTES);
  });
}

function planned(attachment: APIAttachment, type: UrlDownload["type"], mime: string, maxBytes: number): PlannedFile {
  if (attachment.size > maxBytes) return rejected(attachment, type, mime, sizeExceeded(attachment.size, maxBytes));
  return { kind: "download", url: attachment.url, type, filename: attachment.filename, mime_type: mime, size: attachment.size, maxBytes };
}

function rejected(attachment: APIAttachment, type: string, mime: string, status: string): PlannedFile {
  return { kind: "rejected", attachment: { type, filename: attachment.filename, mime_type: mime, data: "", size: attachment.size, status } };
}

