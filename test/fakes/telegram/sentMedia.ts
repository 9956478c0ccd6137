import type { Document, PhotoSize } from "grammy/types";
import { badRequest, requestEntityTooLarge } from "./botApiError.js";
import type { BotFiles, StoredFile } from "./botFiles.js";
import { imageSize, type ImageSize } from "./imageSize.js";
import type { UploadedFile } from "./multipartBody.js";

/** The largest photo Telegram takes (TDLib's `MAX_PHOTO_SIZE`, 10 MB of 2^20 bytes); a bigger picture goes as a document. */
export const PHOTO_LIMIT_BYTES = 10 << 20;
/** A photo's width and height together, at most ("must not exceed 10000 in total"). */
const PHOTO_MAX_SIDES = 10_000;
/** Width to height, or height to width, at most. */
const PHOTO_MAX_RATIO = 20;
/** The side of the thumbnail Telegram adds to a photo's sizes. */
const THUMBNAIL_SIDE = 90;

/** A file the bot sent, as the fake keeps it beside the message: what the person sees and its exact bytes. */
export interface SentFile {
  readonly kind: "photo" | "document";
  /** A document's file name; a photo shows none. */
  readonly name: string | undefined;
  readonly mime_type: string | undefined;
  readonly size: number;
  readonly bytes: Buffer;
}

/** Media types by extension, as Telegram sets a document's `mime_type` from its file name; others `application/octet-stream`. */
const MIME_TYPES: Readonly<Record<string, string>> = {
  pdf: "application/pdf",
  zip: "application/zip",
  json: "application/json",
  txt: "text/plain",
  csv: "text/csv",
  md: "text/markdown",
  html: "text/html",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
};

/**
 * What Telegram checks of an upload once the chat is known: not empty, within the upload limit (413
 * past it, as the HTTP front answers a body too large for it); a photo within 10 MB, a picture it can read (`IMAGE_PROCESS_FAILED`), of dimensions it
 * takes (`PHOTO_INVALID_DIMENSIONS`: width and height at most 10000 together, at most 20 to 1).
 */
export function checkedUpload(file: UploadedFile, as: "photo" | "document", uploadLimitBytes: number): ImageSize | undefined {
  if (file.size === 0) throw badRequest("file must be non-empty");
  if (file.size > uploadLimitBytes) throw requestEntityTooLarge();
  if (as === "document") return undefined;
  if (file.size > PHOTO_LIMIT_BYTES) throw badRequest(`file of size ${file.size} bytes is too big for a photo; the maximum size is ${PHOTO_LIMIT_BYTES} bytes`);
  const size = imageSize(file.bytes);
  if (size === undefined) throw badRequest("IMAGE_PROCESS_FAILED");
  const { width, height } = size;
  if (width === 0 || height === 0 || width + height > PHOTO_MAX_SIDES || Math.max(width, height) > PHOTO_MAX_RATIO * Math.min(width, height)) throw badRequest("PHOTO_INVALID_DIMENSIONS");
  return size;
}

/** A sent photo's `photo` field: a thumbnail and the full size, largest last, each a file `getFile` serves. */
export function photoSizes(files: BotFiles, file: UploadedFile, size: ImageSize): PhotoSize[] {
  const where = { folder: "photos", extension: size.format === "jpeg" ? "jpg" : size.format };
  const scale = Math.min(1, THUMBNAIL_SIDE / Math.max(size.width, size.height));
  const thumbnail = { ...fileRef(files.register(file.bytes, where)), width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
  return [thumbnail, { ...fileRef(files.register(file.bytes, where)), width: size.width, height: size.height }];
}

/** A sent document's `document` field: the upload's file name and the media type its extension names. */
export function documentOf(files: BotFiles, file: UploadedFile): Document {
  const dot = file.filename.lastIndexOf(".");
  const extension = dot < 0 ? "" : file.filename.slice(dot + 1).toLowerCase();
  const stored = files.register(file.bytes, { folder: "documents", extension: extension === "" ? "bin" : extension });
  return { ...fileRef(stored), file_name: file.filename, mime_type: MIME_TYPES[extension] ?? "application/octet-stream" };
}

function fileRef(file: StoredFile): { file_id: string; file_unique_id: string; file_size: number } {
  return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.file_size };
}
