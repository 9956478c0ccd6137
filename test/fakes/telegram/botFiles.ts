import { randomBytes } from "node:crypto";
import type { File } from "grammy/types";
import { badRequest } from "./botApiError.js";

/** The largest file a bot may download from Telegram's cloud Bot API (20 MB). */
export const DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
/** The cloud Bot API's upload limit: "bots can currently send files of up to 50 MB in size" (TDLib's MB: 2^20 bytes). */
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;

/** A file a user sent: its ids, where `getFile` says it lies, and its bytes. */
export interface StoredFile {
  readonly file_id: string;
  readonly file_unique_id: string;
  readonly file_size: number;
  readonly file_path: string;
  readonly bytes: Buffer;
}

/**
 * Files users sent (voice notes, audio, photos, documents) and the bot's uploads: `getFile` answers a `File` with its
 * `file_path`, and `GET /file/bot<token>/<file_path>` serves the bytes. File ids are opaque strings, new
 * per fake, as Telegram's are.
 */
export class BotFiles {
  private readonly byId = new Map<string, StoredFile>();
  private readonly byPath = new Map<string, StoredFile>();
  private count = 0;

  /** Keeps a file; `folder` and `extension` shape its path the way Telegram's do (`voice/file_3.oga`). */
  register(bytes: Uint8Array | string, where: { folder: string; extension: string }): StoredFile {
    this.count++;
    const content = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes);
    const file: StoredFile = {
      file_id: `AgAC${randomBytes(12).toString("base64url")}${this.count}`,
      file_unique_id: `AQAD${this.count}${randomBytes(3).toString("base64url")}`,
      file_size: content.length,
      file_path: `${where.folder}/file_${this.count}.${where.extension}`,
      bytes: content,
    };
    this.byId.set(file.file_id, file);
    this.byPath.set(file.file_path, file);
    return file;
  }

  /** `getFile`: the file's `File` object, or Telegram's refusals. */
  getFile(fileId: string): File {
    const file = this.byId.get(fileId);
    if (!file) throw badRequest("invalid file_id");
    if (file.file_size > DOWNLOAD_LIMIT_BYTES) throw badRequest("file is too big");
    return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.file_size, file_path: file.file_path };
  }

  /** The bytes at a `file_path`, or undefined (404). */
  download(path: string): Buffer | undefined {
    const file = this.byPath.get(path);
    return file && file.file_size <= DOWNLOAD_LIMIT_BYTES ? file.bytes : undefined;
  }
}
