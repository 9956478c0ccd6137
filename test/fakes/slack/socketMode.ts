import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

export type EnvelopeType = "events_api" | "slash_commands" | "interactive";
export type DisconnectReason = "warning" | "refresh_requested" | "link_disabled" | "too_many_websockets";

/** One envelope sent on a connection, and its ack (filled in when it came). */
export interface SentEnvelope {
  readonly envelope_id: string;
  readonly type: EnvelopeType;
  /** The Events API payload's `event_id` (the same on every retry of one event). */
  readonly event_id: string | undefined;
  readonly retry_attempt: number;
  readonly connection: number;
  readonly sentAt: number;
  ackedAt: number | undefined;
  ackLatencyMs: number | undefined;
  /** What the ack carried beside `envelope_id` (SocketModeClient always sends `payload: {}`). */
  ackPayload: unknown;
  /** Acked after a retry of it had gone out. */
  late: boolean;
}

export interface SocketModeOptions {
  readonly appId: string;
  /** How long an envelope may wait for its ack before Slack sends it again (default 3000 ms, as Slack). */
  readonly ackTimeoutMs: number;
  /** How many times an unacked Events API envelope is sent again (default 3, as the Events API retries). */
  readonly maxRetries: number;
  /** Connections an app may hold at once (Slack: 10); one more gets `disconnect` `too_many_websockets`. */
  readonly maxConnections: number;
  /** How often the server pings each connection (0: never). */
  readonly pingIntervalMs: number;
  readonly now: () => number;
}

interface Delivery {
  readonly type: EnvelopeType;
  readonly payload: Record<string, unknown>;
  readonly acceptsResponsePayload: boolean;
  readonly eventId: string | undefined;
  attempts: number;
  acked: boolean;
  timer: NodeJS.Timeout | undefined;
}

interface Connection {
  readonly id: number;
  readonly ws: WebSocket;
  readonly pinger: NodeJS.Timeout | undefined;
}

/**
 * The Socket Mode side of the fake: tickets issued by `apps.connections.open`, each good for one
 * WebSocket; `hello` on connect; envelopes spread over the open connections in turn; an ack
 * (`{"envelope_id"}`) expected within `ackTimeoutMs`, else the Events API envelope goes again under a new
 * `envelope_id` with `retry_attempt` + 1 and `retry_reason: "timeout"` (the payload's `event_id` unchanged);
 * `disconnect` messages on request. Envelopes with no connection open wait for the next one.
 */
export class SocketModeServer {
  readonly sent: SentEnvelope[] = [];
  /** Frames from clients that were not an ack of a known envelope. */
  readonly strayFrames: string[] = [];
  /** Events API envelopes that ran out of retries unacked, and other envelopes never acked. */
  readonly undelivered: { type: EnvelopeType; event_id: string | undefined; attempts: number }[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly connections: Connection[] = [];
  private readonly waiting: Delivery[] = [];
  private readonly byEnvelope = new Map<string, { delivery: Delivery; sent: SentEnvelope }>();
  private nextConnection = 1;
  private turn = 0;
  private mostOpen = 0;
  private opened = 0;
  private closed = false;

  constructor(private readonly options: SocketModeOptions) {}

  /** A one-use ticket for the WebSocket URL `apps.connections.open` answers. */
  issueTicket(): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return ticket;
  }

  /** Upgrades `/link/?ticket=…&app_id=…` with an unused ticket; anything else is refused with 403 before the handshake. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const ticket = url.searchParams.get("ticket") ?? "";
    if (this.closed || url.pathname !== "/link/" || !this.tickets.delete(ticket) || url.searchParams.get("app_id") !== this.options.appId) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.connections.length;
  }

  /** The most connections ever open at once (1 when they never overlapped). */
  get maxOpenConnections(): number {
    return this.mostOpen;
  }

  /** Connections accepted since the start. */
  get connectionsOpened(): number {
    return this.opened;
  }

  /** Ack latencies (ms) of every acked envelope, in the order they were sent. */
  ackLatencies(): number[] {
    return this.sent.flatMap((envelope) => (envelope.ackLatencyMs === undefined ? [] : [envelope.ackLatencyMs]));
  }

  /** Envelopes sent and not (yet) acked. */
  unacked(): SentEnvelope[] {
    return this.sent.filter((envelope) => envelope.ackedAt === undefined);
  }

  /** Payloads waiting for a connection, oldest first: what a client that connects now is sent first. */
  pendingPayloads(): Record<string, unknown>[] {
    return this.waiting.map((delivery) => delivery.payload);
  }

  deliver(type: EnvelopeType, payload: Record<string, unknown>, options: { acceptsResponsePayload: boolean; eventId?: string }): void {
    const delivery: Delivery = { type, payload, acceptsResponsePayload: options.acceptsResponsePayload, eventId: options.eventId, attempts: 0, acked: false, timer: undefined };
    if (!this.send(delivery)) this.waiting.push(delivery);
  }

  /** Sends `{"type":"disconnect","reason"}` on every open connection (or one); closes it after `closeAfterMs` if the client has not. */
  requestDisconnect(reason: DisconnectReason, options: { connection?: number; closeAfterMs?: number } = {}): void {
    for (const connection of this.connections.filter((each) => options.connection === undefined || each.id === options.connection)) {
      connection.ws.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: `applink-fake-${connection.id}` } }));
      if (options.closeAfterMs !== undefined) setTimeout(() => connection.ws.close(1000), options.closeAfterMs).unref();
    }
  }

  /** Cuts every connection without a close handshake (a network failure, a killed Slack host). */
  dropConnections(): void {
    for (const connection of [...this.connections]) connection.ws.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const delivery of [...this.waiting, ...[...this.byEnvelope.values()].map((each) => each.delivery)]) clearTimeout(delivery.timer);
    this.dropConnections();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    const id = this.nextConnection++;
    if (this.connections.length >= this.options.maxConnections) {
      ws.send(JSON.stringify({ type: "disconnect", reason: "too_many_websockets", debug_info: { host: `applink-fake-${id}` } }));
      ws.close(1000);
      return;
    }
    const pinger = this.options.pingIntervalMs > 0 ? setInterval(() => ws.ping(), this.options.pingIntervalMs).unref() : undefined;
    const connection: Connection = { id, ws, pinger };
    this.connections.push(connection);
    this.opened++;
    this.mostOpen = Math.max(this.mostOpen, this.connections.length);
    ws.on("message", (data, isBinary) => this.receive(isBinary ? "<binary>" : data.toString()));
    ws.on("close", () => this.forget(connection));
    ws.on("error", () => this.forget(connection));
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.connections.length,
        debug_info: { host: `applink-fake-${id}`, build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.options.appId },
      }),
    );
    for (const delivery of this.waiting.splice(0)) this.send(delivery);
  }

  private forget(connection: Connection): void {
    clearInterval(connection.pinger);
    const index = this.connections.indexOf(connection);
    if (index >= 0) this.connections.splice(index, 1);
  }

  /** Sends a delivery on the next open connection; false when none is open. */
  private send(delivery: Delivery): boolean {
    if (this.connections.length === 0 || this.closed) return false;
    const connection = this.connections[this.turn++ % this.connections.length]!;
    const envelopeId = randomUUID();
    const retry = delivery.attempts;
    delivery.attempts++;
    const envelope = {
      envelope_id: envelopeId,
      type: delivery.type,
      payload: delivery.payload,
      accepts_response_payload: delivery.acceptsResponsePayload,
      ...(delivery.type === "events_api" ? { retry_attempt: retry, retry_reason: retry === 0 ? "" : "timeout" } : {}),
    };
    const sent: SentEnvelope = { envelope_id: envelopeId, type: delivery.type, event_id: delivery.eventId, retry_attempt: retry, connection: connection.id, sentAt: this.options.now(), ackedAt: undefined, ackLatencyMs: undefined, ackPayload: undefined, late: false };
    this.sent.push(sent);
    this.byEnvelope.set(envelopeId, { delivery, sent });
    connection.ws.send(JSON.stringify(envelope));
    delivery.timer = setTimeout(() => this.timedOut(delivery), this.options.ackTimeoutMs).unref();
    return true;
  }

  private timedOut(delivery: Delivery): void {
    if (delivery.acked || this.closed) return;
    const retries = delivery.type === "events_api" ? this.options.maxRetries : 0;
    if (delivery.attempts > retries) {
      this.undelivered.push({ type: delivery.type, event_id: delivery.eventId, attempts: delivery.attempts });
      return;
    }
    if (!this.send(delivery)) this.waiting.push(delivery);
  }

  private receive(frame: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(frame);
    } catch {
      this.strayFrames.push(frame);
      return;
    }
    const envelopeId = (parsed as { envelope_id?: unknown } | null)?.envelope_id;
    const known = typeof envelopeId === "string" ? this.byEnvelope.get(envelopeId) : undefined;
    if (!known || known.sent.ackedAt !== undefined) {
      this.strayFrames.push(frame);
      return;
    }
    const { delivery, sent } = known;
    const now = this.options.now();
    Object.assign(sent, { ackedAt: now, ackLatencyMs: now - sent.sentAt, ackPayload: (parsed as { payload?: unknown }).payload, late: delivery.attempts > sent.retry_attempt + 1 });
    delivery.acked = true;
    clearTimeout(delivery.timer);
  }
}
