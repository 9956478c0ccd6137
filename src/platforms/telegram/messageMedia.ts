import type { Message, PhotoSize } from "grammy/types";
import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import { MAX_AUDIO_BYTES } from "../../stt/speechToText.js";
import { sizeExceeded } from "../boundedDownload.js";
import { extensionOf, isTextFileName, MAX_IMAGE_BYTES, MAX_TEXT_FILE_BYTES } from "../fileKinds.js";

/** A file of a message to fetch with getFile, as the attachment it becomes. */
export interface PlannedDownload {
  readonly kind: "download";
  readonly fileId: string;
  readonly type: "audio" | "image" | "text_file";
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
 * name says text (anything else refused as `unsupported format: <ext>`). Stickers, videos and the
 * rest carry no attachment. A file Telegram already says is too big is refused without a download.
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
  if (message.document !== undefined) {
    const { file_id, file_size = 0, file_name = "document", mime_type = "application/octet-stream" } = message.document;
    if (!isTextFileName(file_name)) return [rejected("text_file", file_name, mime_type, file_size, `unsupported format: ${extensionOf(file_name) || file_name}`)];
    return [planned(file_id, "text_file", file_name, mime_type.startsWith("text/") ? mime_type : "text/plain", file_size, MAX_TEXT_FILE_BYTES)];
  }
  return [];
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

