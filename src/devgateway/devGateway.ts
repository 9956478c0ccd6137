import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Subject, type Observable } from "rxjs";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { admission, loopbackHosts, normalizedHostName, refusalBody, type Admission, type RefusalReason } from "./admission.js";
import { chatPageHtml, chatPageHeaders } from "./chatPage.js";
import { devEvent } from "./devEvent.js";
import { attachmentLine } from "./attachmentLine.js";
import { replyFrameSchema, type ReplyFrame } from "./replyFrameSchema.js";

export { devEvent, type DevEventOptions } from "./devEvent.js";
export { attachmentLine } from "./attachmentLine.js";
export { devGatewayHello } from "./devHello.js";
export { replyAttachmentSchema, replyFrameSchema, type ReplyFrame } from "./replyFrameSchema.js";


export interface DevGatewayOptions {
  /** `host:port`; port 0 picks a free one. */
  readonly host?: string;
  readonly port?: number;
  /**
   * Brokers, the page and its `/ui` socket must present this as `?token=`. Absent: a fresh random
   * one (read it back from `gateway.token`). There is no way to switch the check off.
   */
  readonly token?: string;
  /** Host names (no port) a request's `Host` may name besides the loopback ones and the listen host. */
  readonly allowedHosts?: readonly string[];
  /**
   * Answer the broker's `client_hello` with a `hello.v1` (default: stay a legacy gateway);
   * `devGatewayHello()` says what this gateway does, files included.
   */
  readonly hello?: Record<string, unknown>;
  /** Ack every send that carries a `request_id` (default true); a function may override ack fields or return undefined for no ack. */
  readonly ack?: boolean | ((frame: ReplyFrame) => Record<string, unknown> | undefined);
  /** How long to wait before acking (a slow platform); default 0. */
  readonly ackDelayMs?: number | ((frame: ReplyFrame) => number);
}

/** What the web chat page sends on `/ui`. */
const uiMessageSchema = z.object({
  text: z.string().min(1),
  proactive: z.boolean().default(false),
  eventId: z.string().min(1).optional(),
  /** The page's own name for the message, echoed with the message id the gateway gave it. */
  clientId: z.string().min(1).max(64).optional(),
});

/** A request the gateway refused; `path` is one the gateway serves, or "other" (never the query, which holds the token). */
export interface Refusal {
  readonly reason: RefusalReason;
  readonly status: 401 | 403;
  readonly path: "/" | "/ui" | "/ws" | "/health" | "other";
  readonly upgrade: boolean;
}

const knownPaths = new Set(["/", "/ui", "/ws", "/health"]);

/** What arrived from a broker: a reply frame, or something else worth showing. */
/** What a broker sent: a reply frame (with the id the gateway gave the message it posts), or any other text. */
export type Received = { readonly kind: "reply"; readonly frame: ReplyFrame; readonly messageId: string } | { readonly kind: "other"; readonly text: string };

/**
 * A local gateway that speaks the OpenAB gateway protocol: a WebSocket server at `/ws`,
 * `GET /health`, every event broadcast to every connected broker, and every send that asks for one
 * acked with `response.v1`. For demos and tests; not a chat platform. `GET /` serves a web chat
 * page whose WebSocket (`/ui`) sends user messages as events and receives every reply frame as
 * `{ kind: "reply" }` (a file in it as its `📎 name (size)` line) and `turnFinished()` as `{ kind: "idle" }`.
 *
 * Secure by default (see `admission`): every path needs the token (401), a `Host`
 * other than loopback, the listen host or `allowedHosts` gets 403, and so does a WebSocket upgrade
 * from another page's origin — `/ui` only from the gateway's own page.
 */
export class DevGateway {
  readonly #options: DevGatewayOptions;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #received = new Subject<Received>();
  readonly #brokers = new Set<WebSocket>();
  readonly #uis = new Set<WebSocket>();
  /** When the last page message was broadcast (`performance.now()`): replies are labelled from it. */
  #lastUiEventAt: number | undefined;
  readonly #connections = new Subject<number>();
  readonly #refused = new Subject<Refusal>();
  readonly #allowedHosts: ReadonlySet<string>;

  /** What brokers, the page and `/ui` must present as `?token=` (configured, or generated at start). */
  readonly token: string;

  /** Frames from brokers, in arrival order. */
  readonly received: Observable<Received> = this.#received.asObservable();
  /** The number of connected brokers, after each change. */
  readonly connections: Observable<number> = this.#connections.asObservable();
  /** Every request refused (401/403), for the operator's terminal; carries no token. */
  readonly refused: Observable<Refusal> = this.#refused.asObservable();

  private constructor(options: DevGatewayOptions) {
    this.#options = options;
    if (options.token === "") throw new TypeError("DevGateway token must not be empty");
    this.token = options.token ?? randomBytes(32).toString("base64url");
    const listenHost = options.host ?? "127.0.0.1";
    this.#allowedHosts = new Set([...loopbackHosts, listenHost, ...(options.allowedHosts ?? [])].map(normalizedHostName));
    this.#wss = new WebSocketServer({ noServer: true });
    this.#server = createServer((request, response) => {
      const verdict = this.#admit(request, false);
      if (!verdict.admitted) {
        response.writeHead(verdict.status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end(refusalBody(verdict));
        return;
      }
      const path = pathOf(request);
      if (path === "/health") {
        response.writeHead(200, { "content-type": "text/plain" }).end("ok");
        return;
      }
      if (request.method === "GET" && path === "/") {
        response.writeHead(200, chatPageHeaders).end(chatPageHtml);
        return;
      }
      response.writeHead(404).end();
    });
    this.#server.on("upgrade", (request, socket, head) => {
      const verdict = this.#admit(request, true);
      if (!verdict.admitted) {
        const statusLine = verdict.status === 401 ? "401 Unauthorized" : "403 Forbidden";
        socket.end(`HTTP/1.1 ${statusLine}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
        return;
      }
      const path = pathOf(request);
      if (path !== "/ui" && path !== "/ws") {
        socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (ws) => (path === "/ui" ? this.#acceptUi(ws) : this.#accept(ws)));
    });
  }

  static async start(options: DevGatewayOptions = {}): Promise<DevGateway> {
    const gateway = new DevGateway(options);
    await new Promise<void>((resolve, reject) => {
      gateway.#server.once("error", reject);
      gateway.#server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
    });
    return gateway;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** The URL a broker's `[gateway] url` should point at (the token goes in `[gateway] token`). */
  get url(): string {
    return `ws://${this.#authority}/ws`;
  }

  /** The chat page, token included: what a developer opens. */
  get pageUrl(): string {
    return `http://${this.#authority}/?token=${encodeURIComponent(this.token)}`;
  }

  get #authority(): string {
    const host = this.#options.host ?? "127.0.0.1";
    return `${host.includes(":") ? `[${host}]` : host}:${this.port}`;
  }

  get brokerCount(): number {
    return this.#brokers.size;
  }

  /**
   * Sends an event frame (object or raw text) to every connected broker, as the real gateway's
   * broadcast does. Bytes go out as a text frame as they are, valid UTF-8 or not (a test's malformed frame).
   */
  broadcast(frame: object | string | Uint8Array): void {
    if (frame instanceof Uint8Array) {
      for (const ws of this.#brokers) ws.send(frame, { binary: false });
      return;
    }
    const text = typeof frame === "string" ? frame : JSON.stringify(frame);
    for (const ws of this.#brokers) ws.send(text);
  }

  /** Tells every open chat page that the turn finished (it hides its typing indicator). */
  turnFinished(): void {
    for (const ws of this.#uis) ws.send(JSON.stringify({ kind: "idle" }));
  }

  /** Drops every broker connection (they should reconnect). */
  disconnectAll(): void {
    for (const ws of this.#brokers) ws.terminate();
  }

  async close(): Promise<void> {
    for (const ws of this.#brokers) ws.terminate();
    for (const ws of this.#uis) ws.terminate();
    this.#wss.close();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#received.complete();
    this.#connections.complete();
    this.#refused.complete();
  }

  #admit(request: IncomingMessage, upgrade: boolean): Admission {
    const url = requestUrl(request);
    const verdict = admission(
      {
        path: url?.pathname ?? "",
        upgrade,
        host: request.headers.host,
        origin: request.headers.origin,
        token: url?.searchParams.get("token") ?? undefined,
      },
      { token: this.token, allowedHosts: this.#allowedHosts },
    );
    if (!verdict.admitted) {
      const path = url !== undefined && knownPaths.has(url.pathname) ? (url.pathname as Refusal["path"]) : "other";
      this.#refused.next({ reason: verdict.reason, status: verdict.status, path, upgrade });
    }
    return verdict;
  }

  #acceptUi(ws: WebSocket): void {
    this.#uis.add(ws);
    ws.on("close", () => this.#uis.delete(ws));
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let json: unknown;
      try {
        json = JSON.parse(data.toString());
      } catch {
        return;
      }
      const message = uiMessageSchema.safeParse(json);
      if (!message.success) return;
      const { text, proactive, eventId, clientId } = message.data;
      const event = devEvent(text, { proactive, ...(eventId === undefined ? {} : { eventId }) });
      this.broadcast(event);
      this.#lastUiEventAt = performance.now();
      // The page learns its message's id, so reactions on it show on the message itself.
      if (clientId !== undefined) ws.send(JSON.stringify({ kind: "sent", clientId, messageId: event.message_id }));
    });
  }

  #toUis(frame: ReplyFrame, messageId: string): void {
    // Timed here, where a chat platform would stamp the message, not where a busy page reads it.
    const afterMs = this.#lastUiEventAt === undefined ? undefined : Math.round(performance.now() - this.#lastUiEventAt);
    const files = frame.content.attachments ?? [];
    const message = JSON.stringify({
      kind: "reply",
      text: frame.content.text,
      ...(files.length === 0 ? {} : { files: files.map(attachmentLine) }),
      ...(afterMs === undefined ? {} : { afterMs }),
      ...(frame.command === undefined ? { messageId } : {}),
      ...(frame.quote_message_id === undefined ? {} : { quote: frame.quote_message_id }),
      ...(frame.command === undefined ? {} : { command: frame.command, replyTo: frame.reply_to }),
    });
    for (const ws of this.#uis) ws.send(message);
  }

  #accept(ws: WebSocket): void {
    this.#brokers.add(ws);
    this.#connections.next(this.#brokers.size);
    ws.on("close", () => {
      this.#brokers.delete(ws);
      this.#connections.next(this.#brokers.size);
    });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      this.#onFrame(ws, data.toString());
    });
  }

  #onFrame(ws: WebSocket, text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#received.next({ kind: "other", text });
      return;
    }
    if (typeof json === "object" && json !== null && (json as { schema?: unknown }).schema === "openab.gateway.client_hello.v1") {
      if (this.#options.hello !== undefined) ws.send(JSON.stringify({ schema: "openab.gateway.hello.v1", protocol_version: 1, ...this.#options.hello }));
      return;
    }
    const reply = replyFrameSchema.safeParse(json);
    if (!reply.success) {
      this.#received.next({ kind: "other", text });
      return;
    }
    // Every posted message gets its id now, acked or not, so the page can apply later edits to it.
    const messageId = `gw-${randomBytes(4).toString("hex")}`;
    this.#received.next({ kind: "reply", frame: reply.data, messageId });
    this.#toUis(reply.data, messageId);
    this.#acknowledge(ws, reply.data, messageId);
  }

  #acknowledge(ws: WebSocket, frame: ReplyFrame, messageId: string): void {
    if (frame.request_id === undefined || this.#options.ack === false) return;
    const custom = typeof this.#options.ack === "function" ? this.#options.ack(frame) : undefined;
    if (typeof this.#options.ack === "function" && custom === undefined) return;
    const { ackDelayMs = 0 } = this.#options;
    const delay = typeof ackDelayMs === "function" ? ackDelayMs(frame) : ackDelayMs;
    const ack = JSON.stringify({
      schema: "openab.gateway.response.v1",
      request_id: frame.request_id,
      success: true,
      message_id: messageId,
      thread_id: null,
      error: null,
      ...custom,
    });
    if (delay > 0) setTimeout(() => ws.send(ack), delay);
    else ws.send(ack);
  }
}

/** The request target on a fixed base: the `Host` header is judged by `admission`, never used to parse. */
function requestUrl(request: IncomingMessage): URL | undefined {
  try {
    return new URL(request.url ?? "/", "http://dev-gateway.invalid");
  } catch {
    return undefined;
  }
}

function pathOf(request: IncomingMessage): string {
  return requestUrl(request)?.pathname ?? "";
}
