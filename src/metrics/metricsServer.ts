import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { splitHostPort } from "../config/fields.js";
import type { Logger } from "../log/logger.js";
import { MetricsListenError } from "./errors.js";
import type { EventLoopHealth } from "./eventLoopHealth.js";
import type { Readiness } from "./readiness.js";

export interface MetricsServerOptions {
  /** `[metrics] listen`, validated (`host:port`; port 0 picks a free one). */
  readonly listen: string;
  /** The Prometheus text exposition, and its content type. */
  readonly metrics: () => Promise<string>;
  readonly contentType: string;
  readonly readiness: () => Readiness;
  readonly health: EventLoopHealth;
  readonly logger: Logger;
}

/**
 * The operator's listener: `GET /metrics` (Prometheus text format), `GET /healthz` (the process
 * is alive and its event loop responsive) and `GET /readyz` (200 only when the role can do its
 * work, else 503 naming what is missing). Bodies never hold a path, a stack or a secret.
 */
export class MetricsServer {
  readonly #options: MetricsServerOptions;
  readonly #server: Server;
  #url: string | undefined;

  constructor(options: MetricsServerOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  /** `http://host:port` once listening. */
  get url(): string | undefined {
    return this.#url;
  }

  /** Listens on `listen`; rejects with `MetricsListenError` when it cannot. */
  start(): Promise<void> {
    const { host, port } = splitHostPort(this.#options.listen) ?? { host: "127.0.0.1", port: Number.NaN };
    return new Promise<void>((resolve, reject) => {
      const failed = (err: Error) => reject(new MetricsListenError(this.#options.listen, err));
      this.#server.once("error", failed);
      this.#server.listen(port, host, () => {
        this.#server.off("error", failed);
        const address = this.#server.address() as AddressInfo;
        this.#url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
        this.#options.health.start();
        this.#options.logger.info({ url: this.#url }, "metrics endpoint listening");
        resolve();
      });
    });
  }

  /** Stops listening and ends open connections (a scraper's keep-alive must not hold the process). */
  close(): Promise<void> {
    this.#options.health.stop();
    if (!this.#server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?", 1)[0];
    if (request.method !== "GET" && request.method !== "HEAD") {
      reply(response, 405, "text/plain; charset=utf-8", "method not allowed\n", { allow: "GET, HEAD" });
      return;
    }
    switch (path) {
      case "/metrics":
        await this.#metrics(response);
        return;
      case "/healthz": {
        const health = this.#options.health.check();
        const body = { status: health.healthy ? "ok" : "stalled", event_loop_stall_ms: Math.round(health.stallMs) };
        json(response, health.healthy ? 200 : 503, body);
        return;
      }
      case "/readyz": {
        const { ready, phase, missing } = this.#options.readiness();
        json(response, ready ? 200 : 503, { status: ready ? "ready" : "not_ready", phase, missing });
        return;
      }
      default:
        reply(response, 404, "text/plain; charset=utf-8", "not found: try /metrics, /healthz or /readyz\n");
    }
  }

  async #metrics(response: ServerResponse): Promise<void> {
    let text: string;
    try {
      text = await this.#options.metrics();
    } catch (err) {
      this.#options.logger.error({ reason: "collect_failed", err }, "metrics collection failed");
      reply(response, 500, "text/plain; charset=utf-8", "metrics collection failed\n");
      return;
    }
    reply(response, 200, this.#options.contentType, text);
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  reply(response, status, "application/json; charset=utf-8", `${JSON.stringify(body)}\n`);
}

function reply(response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": contentType, "cache-control": "no-store", ...headers });
  response.end(response.req.method === "HEAD" ? undefined : body);
}
