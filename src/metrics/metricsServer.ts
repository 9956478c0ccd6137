import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { splitHostPort } from "../config/fields.js";
import type { Logger } from "../log/logger.js";
import { MetricsListenError } from "./errors.js";
import type { EventLoopHealth } from "./eventLoopHealth.js";
import type { Answer, ConnectionLimits } from "./listenerConnection.js";
import { ListenerConnections } from "./listenerConnections.js";
import type { Readiness } from "./readiness.js";
import { RefusalLog } from "./refusalLog.js";
import type { RequestHead } from "./requestHead.js";
import { SharedScrape } from "./sharedScrape.js";

/**
 * What clients may hold of the listener. Prometheus and a kubelet send a request in one packet
 * and read the answer at once; these bounds only ever meet a client that does not.
 */
export interface ListenerLimits extends ConnectionLimits {
  /** Open connections; one beyond closes a pipelining or idle one, or is refused. */
  readonly maxConnections: number;
}

export const LISTENER_LIMITS: ListenerLimits = {
  maxConnections: 256,
  maxHeadBytes: 8 * 1024,
  headersTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  stalledClientMs: 30_000,
};

export interface MetricsServerOptions {
  /** `[metrics] listen`, validated (`host:port`; port 0 picks a free one). */
  readonly listen: string;
  /** The Prometheus text exposition, and its content type. */
  readonly metrics: () => Promise<string>;
  readonly contentType: string;
  readonly readiness: () => Readiness;
  readonly health: EventLoopHealth;
  readonly logger: Logger;
  /** Default `LISTENER_LIMITS`; tests shorten them. */
  readonly limits?: Partial<ListenerLimits>;
}

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const NOT_FOUND: Answer = { status: 404, contentType: TEXT, body: Buffer.from("not found: try /metrics, /healthz or /readyz\n") };
const NOT_ALLOWED: Answer = { status: 405, contentType: TEXT, body: Buffer.from("method not allowed\n"), headers: { allow: "GET, HEAD" } };
const COLLECT_FAILED: Answer = { status: 500, contentType: TEXT, body: Buffer.from("metrics collection failed\n") };

/**
 * The operator's listener: `GET /metrics` (Prometheus text format), `GET /healthz` (the process
 * is alive and its event loop responsive) and `GET /readyz` (200 only when the role can do its
 * work, else 503 naming what is missing). Bodies never hold a path, a stack or a secret.
 *
 * It shares the broker's event loop, so a flood of scrapes must not stall the broker nor keep
 * the probes out: each connection is read one request per turn of the loop
 * (`ListenerConnection`), scrapes waiting together share one collection (`SharedScrape`),
 * connections are bounded (`ListenerConnections`), slow clients time out, and `/healthz` and
 * `/readyz` are answered at once, never behind a collection.
 */
export class MetricsServer {
  readonly #options: MetricsServerOptions;
  readonly #server: Server;
  readonly #scrape: SharedScrape;
  readonly #connections: ListenerConnections;
  readonly #refusals: RefusalLog;
  #url: string | undefined;

  constructor(options: MetricsServerOptions) {
    this.#options = options;
    const limits = { ...LISTENER_LIMITS, ...options.limits };
    this.#refusals = new RefusalLog(options.logger);
    this.#scrape = new SharedScrape(async () => {
      try {
        return await options.metrics();
      } catch (err) {
        // One line per failed collection, however many scrapes waited for it.
        options.logger.error({ reason: "collect_failed", err }, "metrics collection failed");
        throw err;
      }
    });
    this.#connections = new ListenerConnections(limits.maxConnections, limits, {
      respond: (request) => this.#respond(request),
      refused: (reason, fields) => this.#refusals.note(reason, fields),
    });
    // Half-open: a client that sends its requests and then its FIN still gets every answer.
    this.#server = createServer({ allowHalfOpen: true, noDelay: true }, (socket: Socket) => this.#connections.admit(socket));
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
        // Out of file descriptors while accepting: logged (bounded), never an uncaught error.
        this.#server.on("error", (err: NodeJS.ErrnoException) => this.#refusals.note("accept_failed", { code: err.code }));
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
    this.#refusals.flush();
    if (!this.#server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#connections.destroyAll();
    });
  }

  #respond({ method, path }: RequestHead): Answer | Promise<Answer> {
    if (method !== "GET" && method !== "HEAD") return NOT_ALLOWED;
    switch (path) {
      case "/metrics":
        return this.#scrape.next().then(
          (body): Answer => ({ status: 200, contentType: this.#options.contentType, body }),
          () => COLLECT_FAILED,
        );
      case "/healthz": {
        const { health } = this.#options;
        const { healthy, stallMs } = health.check();
        return json(healthy ? 200 : 503, { status: healthy ? "ok" : "stalled", event_loop_stall_ms: Math.round(stallMs), event_loop_lag_ms: Math.round(health.lagMs()) });
      }
      case "/readyz": {
        const { ready, phase, missing } = this.#options.readiness();
        return json(ready ? 200 : 503, { status: ready ? "ready" : "not_ready", phase, missing });
      }
      default:
        return NOT_FOUND;
    }
  }
}

function json(status: 200 | 503, body: unknown): Answer {
  return { status, contentType: JSON_TYPE, body: Buffer.from(`${JSON.stringify(body)}\n`) };
}
