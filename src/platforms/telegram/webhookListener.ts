import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Update } from "grammy/types";
import { splitHostPort } from "../../config/fields.js";
import type { Logger } from "../../log/logger.js";
import { webhookRefusal, type WebhookGuardConfig, type WebhookRefusalReason } from "./webhookGuard.js";

/** The largest update body read; Telegram's are a few KiB (media come as file ids). */
export const MAX_UPDATE_BYTES = 1024 * 1024;

export interface WebhookListenerOptions extends WebhookGuardConfig {
  /** `[telegram] webhook_listen`: `host:port` (port 0 picks a free one). */
  readonly listen: string;
  /** Takes one update: resolves `true` once its event was settled (then 200), `false` when it was not (503: Telegram retries). */
  readonly take: (update: Update) => Promise<boolean>;
  /** Whether updates are taken now (the bot's username known); until then 503, and Telegram tries again. */
  readonly accepting: () => boolean;
  readonly logger: Logger;
}

type Refused = WebhookRefusalReason | "too_large" | "unparsable" | "not_ready";

/**
 * Webhook mode's HTTP listener (`node:http`): POSTs of updates at `webhook_path`, each refused as
 * `webhookRefusal` says or read (bounded: 413 past `MAX_UPDATE_BYTES`, 400 when it is not an
 * update), then answered 200 only once its event was settled — an update the broker died holding
 * is never answered, so Telegram delivers it again. A run of refusals logs each of its reasons once,
 * so a scanner hitting the listener cannot flood the log, even alternating paths and methods.
 */
export class WebhookListener {
  readonly #options: WebhookListenerOptions;
  readonly #server: Server;
  /** The reasons the run of refusals under way has logged; cleared by an accepted update. */
  readonly #refusing = new Set<Refused>();

  constructor(options: WebhookListenerOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => this.#handle(request, response));
  }

  /** Binds `listen`; rejects when it cannot (the address in use, a host it does not have). */
  listen(): Promise<void> {
    const where = splitHostPort(this.#options.listen);
    if (where === undefined) return Promise.reject(new Error(`not a host:port: ${this.#options.listen}`));
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(where.port, where.host, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
  }

  /** `http://host:port` of the bound listener; undefined while it is not bound. */
  get url(): string | undefined {
    const address = this.#server.address() as AddressInfo | null;
    if (address === null) return undefined;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** Stops listening; requests still waiting for their event are cut (Telegram retries them). */
  close(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    return closed;
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const refusal = webhookRefusal({ method: request.method, url: request.url, headers: request.headers, peer: request.socket.remoteAddress }, this.#options);
    if (refusal !== undefined) {
      this.#refuse(response, refusal.status, refusal.reason, refusal.status === 405 ? { allow: "POST" } : {});
      request.resume();
      return;
    }
    if (!this.#options.accepting()) {
      this.#refuse(response, 503, "not_ready");
      request.resume();
      return;
    }
    void this.#read(request).then((body) => {
      if (body === undefined) return this.#refuse(response, 413, "too_large", { connection: "close" });
      const update = updateOf(body);
      if (update === undefined) return this.#refuse(response, 400, "unparsable");
      this.#refusing.clear();
      return this.#options.take(update).then((settled) => (settled ? answer(response, 200) : this.#refuse(response, 503, "not_ready")));
    }).catch((err: unknown) => {
      this.#options.logger.error({ reason: "intake_failed", err }, "telegram webhook update not taken");
      answer(response, 500);
    });
  }

  /** The body, or undefined past `MAX_UPDATE_BYTES` (the rest is not read). */
  #read(request: IncomingMessage): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      request.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_UPDATE_BYTES) {
          request.removeAllListeners("data");
          request.pause();
          resolve(undefined);
          return;
        }
        chunks.push(chunk);
      });
      request.on("end", () => resolve(Buffer.concat(chunks)));
      request.on("error", () => resolve(undefined));
    });
  }

  #refuse(response: ServerResponse, status: number, reason: Refused, headers: Record<string, string> = {}): void {
    if (!this.#refusing.has(reason)) {
      this.#refusing.add(reason);
      this.#options.logger.warn({ reason, status }, "telegram webhook request refused");
    }
    answer(response, status, headers);
  }
}

function answer(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(status === 200 ? "" : `${status}\n`);
}

/** The body as an update: a JSON object with an integer `update_id`; undefined otherwise. */
function updateOf(body: Buffer): Update | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return Number.isSafeInteger((value as { update_id?: unknown }).update_id) ? (value as Update) : undefined;
}
