import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../../log/logger.js";
import { readAtMost, type DownloadFailure, type UrlDownload } from "../boundedDownload.js";

export interface FileDownloadsOptions {
  /** `xoxb-…`: Slack serves a shared file only with `Authorization: Bearer <bot token>`. */
  readonly token: string;
  /** `[slack] api_root`: its origin may serve files too (a self-hosted proxy, the tests' fake). */
  readonly apiRoot: string;
  /** How long one file may take. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/** Why a file did not arrive (its attachment's status says it to the agent). */
type SlackDownloadFailure = DownloadFailure<"untrusted_host">;

/**
 * A message's files fetched as Slack serves them to a bot (§3.4 step 5): a GET of the file's
 * private URL with the bot token, bounded in time and size, so a slow or huge file holds up nothing
 * for long: a failure becomes the attachment's `status` ("download failed: …", "size exceeded: …"),
 * which the agent reads as a "not delivered" note, and the turn still runs.
 *
 * The token goes only to Slack (`https://*.slack.com`) or to `api_root`'s origin: a file URL in an
 * event is Slack's, but the bot token is not sent anywhere a payload names. A web page where a file
 * was expected is Slack's sign-in page (the app lacks `files:read`): a failure, not the file.
 */
export class FileDownloads {
  readonly #options: FileDownloadsOptions;
  readonly #apiOrigin: string;

  constructor(options: FileDownloadsOptions) {
    this.#options = options;
    this.#apiOrigin = new URL(options.apiRoot).origin;
  }

  /** The attachment `file` becomes: its bytes (base64), or a status saying why not. Never rejects. */
  async attachment(file: UrlDownload): Promise<GatewayAttachment> {
    const base = { type: file.type, filename: file.filename, mime_type: file.mime_type, size: file.size };
    const fetched = await this.#fetch(file).catch((err: unknown) => failureOf(err));
    if (Buffer.isBuffer(fetched)) return { ...base, data: fetched.toString("base64"), size: fetched.length };
    this.#options.logger.warn({ reason: fetched.reason, type: file.type, size: file.size }, "slack attachment not downloaded");
    return { ...base, data: "", status: fetched.status };
  }

  async #fetch(file: UrlDownload): Promise<Buffer | SlackDownloadFailure> {
    if (!this.#trusted(file.url)) return { reason: "untrusted_host", status: "download failed: the file is not on Slack" };
    // A redirect is followed; fetch drops the authorization header when it leads to another origin.
    const response = await fetch(file.url, { headers: { authorization: `Bearer ${this.#options.token}` }, signal: AbortSignal.timeout(this.#options.timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      return { reason: "download_failed", status: `download failed: HTTP ${response.status}` };
    }
    if ((response.headers.get("content-type") ?? "").startsWith("text/html") && !file.mime_type.startsWith("text/html")) {
      await response.body?.cancel();
      return { reason: "download_failed", status: "download failed: Slack answered with a web page (does the app have files:read?)" };
    }
    return readAtMost(response, file.maxBytes);
  }

  #trusted(url: string): boolean {
    try {
      const parsed = new URL(url);
      if (parsed.origin === this.#apiOrigin) return true;
      return parsed.protocol === "https:" && (parsed.hostname === "slack.com" || parsed.hostname.endsWith(".slack.com"));
    } catch {
      return false;
    }
  }
}


/** A failure's status, never the URL's query nor a stack. */
function failureOf(err: unknown): SlackDownloadFailure {
  const name = (err as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return { reason: "timeout", status: "download failed: timed out" };
  const code = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return { reason: "download_failed", status: `download failed: ${typeof code === "string" ? code : "network error"}` };
}
