import type { Document, Message, PhotoSize } from "grammy/types";
import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import { MAX_AUDIO_BYTES } from "../../stt/speechToText.js";
import { sizeExceeded, type DownloadType } from "../boundedDownload.js";
import { extensionOf, isImageFile, isTextFileName, MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES, MAX_TEXT_FILE_BYTES, stripMimeParams } from "../fileKinds.js";

/** A file of a message to fetch with getFile, as the attachment it becomes. */
export interface PlannedDownload {
  readonly kind: "download";
  readonly fileId: string;
  readonly type: DownloadType;
  readonly filename: string;
  readonly mime_type: string;
  /** What Telegram says the file weighs; 0 when it does not say. */
  readonly size: number;
  /** A download past this many bytes is cut off and marked "size exceeded". */
  readonly maxBytes: number;
}

/** What a message's media become: downloads, or attachments refused as they are (with a `status`). */
export type MediaItem = PlannedDownload | { readonly kind: "rejected"; readonly attachment: GatewayAttachment };

/**
 * A message's media as OpenAB's newer Telegram adapter takes them: a voice note or audio file → an
 * `audio` attachment (for `[stt]`), the largest photo → `image`, a document → `text_file` when its
 * name says text. Where upstream refuses any other document (`unsupported format: <ext>`),
 * turnstream takes it as Discord's and Slack's files are taken: `audio/*` → `audio`, an image by
 * type or extension → `image`, anything else (a PDF) → `file` (up to `MAX_DOCUMENT_BYTES`). An
 * animation's document (a GIF as MPEG-4) is still refused; stickers, videos and the rest carry no
 * attachment. A file Telegram already says is too big is refused without a download.
 */
export function mediaOf(message: Message): MediaItem[] {
  if (message.voice !== undefined) {
    const { file_id, file_size = 0, mime_type = "audio/ogg" } = message.voice;
    return [planned(file_id, "audio", "voice.ogg", mime_type, file_size, MAX_AUDIO_BYTES)];
  }
  if (message.audio !== undefined) {
    const { file_id, file_size = 0, mime_type = "audio/mpeg", file_name = "audio.mp3" } = message.audio;
    return [planned(file_id, "audio", file_name, mime_type, file_size, MAX_AUDIO_BYTES)];
  }
  const photo = largest(message.photo ?? []);
  if (photo !== undefined) return [planned(photo.file_id, "image", "photo.jpg", "image/jpeg", photo.file_size ?? 0, MAX_IMAGE_BYTES)];
  if (message.document !== undefined) return [documentOf(message.document, message.animation !== undefined)];
  return [];
}

function documentOf(document: Document, animation: boolean): MediaItem {
  const { file_id, file_size = 0, file_name = "document", mime_type = "application/octet-stream" } = document;
  if (isTextFileName(file_name)) return planned(file_id, "text_file", file_name, mime_type.startsWith("text/") ? mime_type : "text/plain", file_size, MAX_TEXT_FILE_BYTES);
  if (animation) return rejected("file", file_name, mime_type, file_size, `unsupported format: ${extensionOf(file_name) || file_name}`);
  const mime = stripMimeParams(mime_type).toLowerCase();
  if (mime.startsWith("audio/")) return planned(file_id, "audio", file_name, mime, file_size, MAX_AUDIO_BYTES);
  if (isImageFile(mime, file_name)) {
    const extension = extensionOf(file_name);
    return planned(file_id, "image", file_name, mime.startsWith("image/") ? mime : `image/${extension === "jpg" ? "jpeg" : extension}`, file_size, MAX_IMAGE_BYTES);
  }
  return planned(file_id, "file", file_name, mime === "" ? "application/octet-stream" : mime, file_size, MAX_DOCUMENT_BYTES);
}

function planned(fileId: string, type: PlannedDownload["type"], filename: string, mimeType: string, size: number, maxBytes: number): MediaItem {
  if (size > maxBytes) return rejected(type, filename, mimeType, size, sizeExceeded(size, maxBytes));
  return { kind: "download", fileId, type, filename, mime_type: mimeType, size, maxBytes };
}

function rejected(type: string, filename: string, mimeType: string, size: number, status: string): MediaItem {
  return { kind: "rejected", attachment: { type, filename, mime_type: mimeType, data: "", size, status } };
}

/** The photo with the most pixels (Telegram lists sizes smallest first, but says nothing of it). */
function largest(sizes: readonly PhotoSize[]): PhotoSize | undefined {
  let best: PhotoSize | undefined;
  for (const size of sizes) if (best === undefined || size.width * size.height > best.width * best.height) best = size;
  return best;
}

