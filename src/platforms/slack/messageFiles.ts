import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import { MAX_AUDIO_BYTES } from "../../stt/speechToText.js";
import { sizeExceeded, type PlannedFile, type UrlDownload } from "../boundedDownload.js";
import { extensionOf, isImageFile, isTextFile, MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES, MAX_TEXT_FILE_BYTES, MAX_TEXT_FILES, MAX_TEXT_TOTAL_BYTES, stripMimeParams } from "../fileKinds.js";
import { slackFileUrl } from "./slackFileUrl.js";



/**
 * A message's `files` as upstream takes them (§2.7, §3.4 step 5), in order: the URL
 * `url_private_download`, else `url_private`, else the file is skipped; the MIME type without its
 * parameters; audio (`audio/…`) for `[stt]`; a text file by its MIME type or name (at most 5);
 * an image by its MIME type or extension; any other kind of file, which upstream skips, a `file`
 * (≤ `MAX_DOCUMENT_BYTES`), embedded in the prompt when the agent takes one. Where upstream skips
 * silently, the agent is told instead: a sixth text file or a file over its cap by what Slack says
 * become a "not delivered" note with the reason.
 */
export function messageFiles(files: readonly unknown[]): PlannedFile[] {
  const items: PlannedFile[] = [];
  let textFiles = 0;
  for (const file of files) {
    if (typeof file !== "object" || file === null) continue;
    const fields = file as { name?: unknown; mimetype?: unknown; size?: unknown };
    const url = slackFileUrl(file);
    if (url === "") continue;
    const filename = typeof fields.name === "string" && fields.name !== "" ? fields.name : "file";
    const mime = typeof fields.mimetype === "string" ? stripMimeParams(fields.mimetype).toLowerCase() : "";
    const size = typeof fields.size === "number" && Number.isSafeInteger(fields.size) && fields.size > 0 ? fields.size : 0;
    const extension = extensionOf(filename);
    if (mime.startsWith("audio/")) {
      items.push(planned(url, "audio", filename, mime, size, MAX_AUDIO_BYTES));
    } else if (isTextFile(mime, filename)) {
      textFiles++;
      const type = mime === "" || mime === "application/octet-stream" ? "text/plain" : mime;
      items.push(textFiles > MAX_TEXT_FILES ? rejected("text_file", filename, type, size, `skipped: at most ${MAX_TEXT_FILES} text files a message`) : planned(url, "text_file", filename, type, size, MAX_TEXT_FILE_BYTES));
    } else if (isImageFile(mime, filename)) {
      items.push(planned(url, "image", filename, mime.startsWith("image/") ? mime : `image/${extension === "jpg" ? "jpeg" : extension}`, size, MAX_IMAGE_BYTES));
    } else {
      items.push(planned(url, "file", filename, mime === "" ? "application/octet-stream" : mime, size, MAX_DOCUMENT_BYTES));
    }
  }
  return items;
}

/**
 * Upstream re-checks the text files' 1 MiB total with the bytes downloaded (Slack may say 0): in
 * message order, a text file that takes the total past it becomes "size exceeded" instead.
 */
export function withinTextBudget(attachments: readonly GatewayAttachment[]): GatewayAttachment[] {
  let total = 0;
  return attachments.map((attachment) => {
    if (attachment.type !== "text_file" || attachment.data === "" || attachment.status != null) return attachment;
    total += attachment.size;
    if (total <= MAX_TEXT_TOTAL_BYTES) return attachment;
    return { ...attachment, data: "", status: `${sizeExceeded(total, MAX_TEXT_TOTAL_BYTES)} (text files together)` };
  });
}

function planned(url: string, type: UrlDownload["type"], filename: string, mime: string, size: number, maxBytes: number): PlannedFile {
  if (size > maxBytes) return rejected(type, filename, mime, size, sizeExceeded(size, maxBytes));
  return { kind: "download", url, type, filename, mime_type: mime, size, maxBytes };
}

function rejected(type: string, filename: string, mime: string, size: number, status: string): PlannedFile {
  return { kind: "rejected", attachment: { type, filename, mime_type: mime, data: "", size, status } };
}
