import type { Api } from "grammy";
import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../../log/logger.js";
import { botApiFailure } from "./botApiFailure.js";
import { grammySignal } from "./grammySignal.js";
import { readAtMost, sizeExceeded, type DownloadFailure } from "../boundedDownload.js";
import type { PlannedDownload } from "./messageMedia.js";

export interface FileDownloadsOptions {
  readonly api: Api;
  /** `[telegram] api_root`: files are served at `<api_root>/file/bot<token>/<file_path>`. */
  readonly apiRoot: string;
  readonly token: string;
  /** How long one file may take, `getFile` and the download together. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/** Why a file did not arrive (its attachment's status says it to the agent). */

/**
 * A message's files fetched as Telegram serves them to a bot: `getFile` names the file's path, the
 * bytes come from the Bot API's file route under `api_root` (no Bot API method: grammY's core has
 * no download, so this is a plain GET). Each is bounded in time and size, so a slow or huge file
 * holds up nothing for long: a failure becomes the attachment's `status` ("download failed: …",
 * "size exceeded: …"), which the agent reads as a "not delivered" note, and the turn still runs.
 */
export class FileDownloads {
  readonly #options: FileDownloadsOptions;

  constructor(options: FileDownloadsOptions) {
    this.#options = options;
  }

  /** The attachment `file` becomes: its bytes (base64), or a status saying why not. Never rejects. */
  async attachment(file: PlannedDownload): Promise<GatewayAttachment> {
    const base = { type: file.type, filename: file.filename, mime_type: file.mime_type, size: file.size };
    const fetched = await this.#fetch(file).catch((err: unknown) => failureOf(err));
    if (Buffer.isBuffer(fetched)) return { ...base, data: fetched.toString("base64"), size: fetched.length };
    this.#options.logger.warn({ reason: fetched.reason, type: file.type, size: file.size }, "telegram attachment not downloaded");
    return { ...base, data: "", status: fetched.status };
  }

  async #fetch(file: PlannedDownload): Promise<Buffer | DownloadFailure> {
    const { api, apiRoot, token, timeoutMs } = this.#options;
    const signal = AbortSignal.timeout(timeoutMs);
    const found = await api.getFile(file.fileId, grammySignal(signal));
    if (found.file_size !== undefined && found.file_size > file.maxBytes) return { reason: "size_exceeded", status: sizeExceeded(found.file_size, file.maxBytes) };
    if (found.file_path === undefined) return { reason: "download_failed", status: "download failed: Telegram gave no file path" };
    const response = await fetch(`${apiRoot}/file/bot${token}/${found.file_path}`, { signal });
    if (!response.ok) {
      await response.body?.cancel();
      return { reason: "download_failed", status: `download failed: HTTP ${response.status}` };
    }
    return readAtMost(response, file.maxBytes);
  }
}


/** A failure's status, never the URL (it carries the token) nor a stack. */
function failureOf(err: unknown): DownloadFailure {
  const failure = botApiFailure(err);
  if (failure.kind === "refused") return { reason: "download_failed", status: `download failed: ${failure.description}` };
  if (failure.code === "aborted" || failure.code === "timeout") return { reason: "timeout", status: "download failed: timed out" };
  return { reason: "download_failed", status: `download failed: ${failure.code}` };
}
