import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { webhookPrompt } from "../../operators/ingress/webhook/webhookPrompt.js";
import type { Config } from "../config/index.js";
import { splitHostPort } from "../config/fields.js";
import type { Logger } from "../log/logger.js";
import { declaredTooLarge, readBoundedBody } from "./boundedBody.js";
import { deliveryId } from "./deliveryId.js";
import { WebhookListenError } from "./errors.js";
import { bearerCheck, signatureCheck, signatureHeaderCheck } from "./signatureCheck.js";
import { webhookEndpoint, type WebhookEndpoint } from "./webhookEndpoint.js";
import { webhookEvent } from "./webhookEvent.js";
import { type WebhookRefusalReason, WebhookRefusals } from "./webhookRefusals.js";

/** What the broker answers for one submitted event (its `QueuedEvent`s, as far as the listener reads them). */
export interface SubmittedEvent {
  /** The same event id was queued before, within the bus's duplicate window. */
  readonly duplicate: boolean;
}

/** Queues an event for its turn, resolving once it is durably queued: the broker's `submit`. */
export type Submit = (event: GatewayEvent) => Promise<readonly SubmittedEvent[]>;

/** The clocks the listener reads: a monotonic one for the rate windows, the wall clock for an event's timestamp. */
export interface WebhookClock {
  readonly monotonicMs: () => number;
  readonly isoNow: () => string;
}

/** What a client may hold of the listener; fixed, not configured (tests shorten them). */
export interface WebhookListenerLimits {
  /** Open connections; one more is refused by the socket. With `max_body_bytes` it bounds the memory bodies can hold. */
  readonly maxConnections: number;
  /** Time to send a request's head. */
  readonly headersTimeoutMs: number;
  /** Time to send a whole request, body included (Node answers 408 after it). */
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

export const WEBHOOK_LISTENER_LIMITS: WebhookListenerLimits = {
  // Senders are few; 64 × a 1 MiB body is the most the listener holds in memory at once.
  maxConnections: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

export interface WebhookListenerOptions {
  /** `[webhooks]`, resolved. */
  readonly webhooks: Config["webhooks"];
  readonly submit: Submit;
  readonly logger: Logger;
  readonly clock?: WebhookClock;
  readonly limits?: Partial<WebhookListenerLimits>;
}

const SYSTEM_CLOCK: WebhookClock = { monotonicMs: () => performance.now(), isoNow: () => new Date().toISOString() };

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "bad request",
  401: "unauthorized",
  404: "not found",
  405: "method not allowed",
  413: "payload too large",
  429: "too many requests",
  503: "not queued, try again later",
};

/**
 * `[webhooks]`'s HTTP listener (`node:http`): each `[[webhooks.endpoints]]` path takes POSTs whose
 * body becomes one proactive event, handed to `submit` (the broker's) as a gateway's events are.
 *
 * In order, a request is refused: at a path no endpoint serves (404); with another method (405);
 * without the endpoint's credentials, a bearer checked and an HMAC signature's presence and form
 * checked before anything of the body is read (401); with a `Content-Length` over the endpoint's
 * `max_body_bytes` (413, unread), or a body that grows past it (413, reading stopped, connection
 * closed); bearer: past `rate_per_minute` (429, `Retry-After`); hmac: a signature that does not
 * sign the body (401), then past the rate (429); a body that is not JSON, or without the
 * configured event id (400). Otherwise it answers 202 `{"event_id":…,"duplicate":…}` once
 * `submit` resolved, 503 when it rejected. Only authenticated deliveries count against the rate,
 * so a stranger cannot use up a sender's allowance. Refusals are logged per endpoint and reason,
 * a flood summed up (`WebhookRefusals`); nothing logged carries a header, the body or a secret.
 */
export class WebhookListener {
  readonly #options: WebhookListenerOptions;
  readonly #endpoints: ReadonlyMap<string, WebhookEndpoint>;
  readonly #clock: WebhookClock;
  readonly #refusals: WebhookRefusals;
  readonly #server: Server;
  #url: string | undefined;

  constructor(options: WebhookListenerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    const { webhooks } = options;
    this.#endpoints = new Map(webhooks.endpoints.map((config) => [config.path, webhookEndpoint(config, webhooks.max_body_bytes, this.#clock.monotonicMs)]));
    this.#refusals = new WebhookRefusals(options.logger);
    const limits = { ...WEBHOOK_LISTENER_LIMITS, ...options.limits };
    this.#server = createServer(
      // Checked every second (Node's default is every 30 s), so a slow client is cut near its bound.
      { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: limits.keepAliveTimeoutMs, connectionsCheckingInterval: 1_000 },
      (request, response) => this.#handle(request, response, false),
    );
    this.#server.maxConnections = limits.maxConnections;
    // `Expect: 100-continue` (curl's, for a large body): the body is asked for only once the checks that need none passed.
    this.#server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => this.#handle(request, response, true));
  }

  /** `http://host:port` once listening. */
  get url(): string | undefined {
    return this.#url;
  }

  /** Listens on `[webhooks] listen`; rejects with `WebhookListenError` when it cannot. */
  start(): Promise<void> {
    const { listen } = this.#options.webhooks;
    const { host, port } = splitHostPort(listen) ?? { host: "127.0.0.1", port: Number.NaN };
    return new Promise<void>((resolve, reject) => {
      const failed = (err: Error) => reject(new WebhookListenError(listen, err));
      this.#server.once("error", failed);
      this.#server.listen(port, host, () => {
        this.#server.off("error", failed);
        const address = this.#server.address() as AddressInfo;
        this.#url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
        this.#options.logger.info({ url: this.#url, endpoints: [...this.#endpoints.values()].map((endpoint) => endpoint.name) }, "webhooks listening");
        resolve();
      });
    });
  }

  /** Stops listening and ends open connections; a delivery still being queued gets no answer (its sender retries). */
  close(): Promise<void> {
    this.#refusals.flush();
    if (!this.#server.listening) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    return closed;
  }

  #handle(request: IncomingMessage, response: ServerResponse, expectsContinue: boolean): void {
    const endpoint = this.#endpoints.get(pathOf(request.url));
    if (endpoint === undefined) return this.#refuse(response, 404, "not_found", undefined);
    if (request.method !== "POST") return this.#refuse(response, 405, "method_not_allowed", endpoint, { allow: "POST" });
    if (endpoint.auth === "bearer") {
      const check = bearerCheck(request.headers.authorization, endpoint.secret);
      if (check !== "ok") return this.#refuse(response, 401, `bearer_${check}`, endpoint, { "www-authenticate": "Bearer" });
    } else {
      const check = signatureHeaderCheck(request.headers[endpoint.signatureHeader]);
      if (check !== "ok") return this.#refuse(response, 401, `signature_${check}`, endpoint);
    }
    if (declaredTooLarge(request.headers, endpoint.maxBodyBytes)) return this.#refuse(response, 413, "too_large", endpoint);
    if (endpoint.auth === "bearer" && !this.#withinRate(endpoint, response)) return;
    if (expectsContinue) response.writeContinue();
    this.#receive(endpoint, request, response).catch((err: unknown) => {
      // Nothing above throws by design; should something, the sender is told to retry, and the error is logged once per run.
      this.#refusals.notQueued(endpoint.name, err);
      answer(response, 503);
    });
  }

  async #receive(endpoint: WebhookEndpoint, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const read = await readBoundedBody(request, endpoint.maxBodyBytes);
    if (read.kind === "aborted") {
      this.#refusals.refused("body_aborted", undefined, endpoint.name);
      request.socket.destroy();
      return;
    }
    if (read.kind === "too_large") return this.#refuse(response, 413, "too_large", endpoint);
    if (endpoint.auth === "hmac") {
      const check = signatureCheck(read.bytes, endpoint.secret, request.headers[endpoint.signatureHeader]);
      if (check !== "ok") return this.#refuse(response, 401, `signature_${check}`, endpoint);
      if (!this.#withinRate(endpoint, response)) return;
    }
    const text = read.bytes.toString("utf8");
    const body = parsedJson(text);
    if (body === NOT_JSON) return this.#refuse(response, 400, "not_json", endpoint);
    const id = deliveryId(endpoint.idSource, request.headers, body, read.bytes);
    if (id === undefined) return this.#refuse(response, 400, "event_id_missing", endpoint);
    const event = webhookEvent(endpoint.name, endpoint.conversation, id, webhookPrompt({ endpoint: endpoint.name, body, text }, endpoint.template), this.#clock.isoNow());
    let queued: readonly SubmittedEvent[];
    try {
      queued = await this.#options.submit(event);
    } catch (err) {
      this.#refusals.notQueued(endpoint.name, err);
      return answer(response, 503, { "retry-after": "5" });
    }
    // Nothing queued: an `afterIngress` stage dropped the event, which is taken all the same.
    const duplicate = queued.length > 0 && queued.every((one) => one.duplicate);
    this.#options.logger.info({ endpoint: endpoint.name, event_id: event.event_id, duplicate, queued: queued.length }, "webhook delivery queued");
    answerJson(response, 202, { event_id: event.event_id, duplicate });
  }

  /** Counts the delivery against the endpoint's rate, or answers 429 with `Retry-After`. */
  #withinRate(endpoint: WebhookEndpoint, response: ServerResponse): boolean {
    const decision = endpoint.rate.take();
    if (decision.ok) return true;
    this.#refuse(response, 429, "rate_limited", endpoint, { "retry-after": String(decision.retryAfterSecs) });
    return false;
  }

  /**
   * A refusal, logged and answered. The connection is closed after the answer, so a body not read
   * (or not read whole) is never read: Node would otherwise read it to the end to keep the
   * connection for a next request.
   */
  #refuse(response: ServerResponse, status: number, reason: WebhookRefusalReason, endpoint: WebhookEndpoint | undefined, headers: Record<string, string> = {}): void {
    this.#refusals.refused(reason, status, endpoint?.name);
    answer(response, status, { ...headers, connection: "close" });
  }
}

const NOT_JSON = Symbol("not JSON");

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function pathOf(url: string | undefined): string {
  const target = url ?? "";
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

function answer(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(`${status} ${STATUS_TEXT[status] ?? ""}\n`);
}

function answerJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(`${JSON.stringify(body)}\n`);
}
