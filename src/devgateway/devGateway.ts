import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Subject, type Observable } from "rxjs";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { chatPageHtml } from "./chatPage.js";

/** A `reply.v1` frame as the dev gateway reads it from a broker. */
export const replyFrameSchema = z.looseObject({
  schema: z.literal("openab.gateway.reply.v1"),
  reply_to: z.string(),
  platform: z.string(),
  channel: z.looseObject({ id: z.string(), thread_id: z.string().optional() }),
  content: z.looseObject({ type: z.string(), text: z.string() }),
  command: z.string().optional(),
  request_id: z.string().optional(),
  quote_message_id: z.string().optional(),
});
export type ReplyFrame = z.infer<typeof replyFrameSchema>;

export interface DevGatewayOptions {
  /** `host:port`; port 0 picks a free one. */
  readonly host?: string;
  readonly port?: number;
  /** Brokers must connect with `?token=` equal to this; unset accepts everyone. */
  readonly token?: string;
  /** Answer the broker's `client_hello` with a `hello.v1` (default: stay a legacy gateway). */
  readonly hello?: Record<string, unknown>;
  /** Ack every send that carries a `request_id` (default true); a function may override ack fields or return undefined for no ack. */
  readonly ack?: boolean | ((frame: ReplyFrame) => Record<string, unknown> | undefined);
  /** How long to wait before acking (a slow platform); default 0. */
  readonly ackDelayMs?: number | ((frame: ReplyFrame) => number);
}

export interface DevEventOptions {
  readonly proactive?: boolean;
  /** Defaults to a fresh `evt-…` id; a fixed one exercises triage dedupe. */
  readonly eventId?: string;
  readonly platform?: string;
}

/** The `event.v1` a dev user's message becomes (the terminal's and the web chat's one shape). */
export function devEvent(text: string, { proactive = false, eventId, platform = "telegram" }: DevEventOptions = {}): Record<string, unknown> {
  return {
    schema: "openab.gateway.event.v1",
    event_id: eventId ?? `evt-${randomBytes(4).toString("hex")}`,
    timestamp: new Date().toISOString(),
    platform,
    channel: { id: "dev-chat", type: "dm" },
    sender: { id: "dev-user", name: "you", display_name: "You", is_bot: false },
    content: { type: "text", text },
    mentions: [],
    message_id: `msg-${randomBytes(4).toString("hex")}`,
    proactive,
  };
}

/** What the web chat page sends on `/ui`. */
const uiMessageSchema = z.object({ text: z.string().min(1), proactive: z.boolean().default(false), eventId: z.string().min(1).optional() });

/** What arrived from a broker: a reply frame, or something else worth showing. */
export type Received = { readonly kind: "reply"; readonly frame: ReplyFrame } | { readonly kind: "other"; readonly text: string };

/**
 * A local gateway that speaks the OpenAB gateway protocol: a WebSocket server at `/ws` (token
 * checked, 401 otherwise), `GET /health`, every event broadcast to every connected broker, and
 * every send that asks for one acked with `response.v1`. For demos and tests; not a chat platform.
 * `GET /` serves a web chat page whose WebSocket (`/ui`, same token) sends user messages as
 * events and receives every reply frame as `{ kind: "reply" }` and `turnFinished()` as `{ kind: "idle" }`.
 */
export class DevGateway {
  readonly #options: DevGatewayOptions;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #received = new Subject<Received>();
  readonly #brokers = new Set<WebSocket>();
  readonly #uis = new Set<WebSocket>();
  readonly #connections = new Subject<number>();

  /** Frames from brokers, in arrival order. */
  readonly received: Observable<Received> = this.#received.asObservable();
  /** The number of connected brokers, after each change. */
  readonly connections: Observable<number> = this.#connections.asObservable();

  private constructor(options: DevGatewayOptions) {
    this.#options = options;
    this.#wss = new WebSocketServer({ noServer: true });
    this.#server = createServer((request, response) => {
      if (request.url === "/health") {
        response.writeHead(200, { "content-type": "text/plain" }).end("ok");
        return;
      }
      if (request.method === "GET" && pathOf(request) === "/") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(chatPageHtml);
        return;
      }
      response.writeHead(404).end();
    });
    this.#server.on("upgrade", (request, socket, head) => {
      if (!this.#authorized(request)) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
        return;
      }
      const ui = pathOf(request) === "/ui";
      this.#wss.handleUpgrade(request, socket, head, (ws) => (ui ? this.#acceptUi(ws) : this.#accept(ws)));
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

  /** The URL a broker's `[gateway] url` should point at. */
  get url(): string {
    const host = this.#options.host ?? "127.0.0.1";
    return `ws://${host.includes(":") ? `[${host}]` : host}:${this.port}/ws`;
  }

  get brokerCount(): number {
    return this.#brokers.size;
  }

  /** Sends an event frame (object or raw text) to every connected broker, as the real gateway's broadcast does. */
  broadcast(frame: object | string): void {
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
  }

  #authorized(request: IncomingMessage): boolean {
    if (this.#options.token === undefined) return true;
    const url = new URL(request.url ?? "/", "http://localhost");
    return (url.pathname === "/ws" || url.pathname === "/ui") && url.searchParams.get("token") === this.#options.token;
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
      const { text, proactive, eventId } = message.data;
      this.broadcast(devEvent(text, { proactive, ...(eventId === undefined ? {} : { eventId }) }));
    });
  }

  #toUis(frame: ReplyFrame): void {
    const message = JSON.stringify({
      kind: "reply",
      text: frame.content.text,
      ...(frame.quote_message_id === undefined ? {} : { quote: frame.quote_message_id }),
      ...(frame.command === undefined ? {} : { command: frame.command }),
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
    this.#received.next({ kind: "reply", frame: reply.data });
    this.#toUis(reply.data);
    this.#acknowledge(ws, reply.data);
  }

  #acknowledge(ws: WebSocket, frame: ReplyFrame): void {
    if (frame.request_id === undefined || this.#options.ack === false) return;
    const custom = typeof this.#options.ack === "function" ? this.#options.ack(frame) : undefined;
    if (typeof this.#options.ack === "function" && custom === undefined) return;
    const { ackDelayMs = 0 } = this.#options;
    const delay = typeof ackDelayMs === "function" ? ackDelayMs(frame) : ackDelayMs;
    const ack = JSON.stringify({
      schema: "openab.gateway.response.v1",
      request_id: frame.request_id,
      success: true,
      message_id: `gw-${randomBytes(3).toString("hex")}`,
      thread_id: null,
      error: null,
      ...custom,
    });
    if (delay > 0) setTimeout(() => ws.send(ack), delay);
    else ws.send(ack);
  }
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? "/", "http://localhost").pathname;
}
