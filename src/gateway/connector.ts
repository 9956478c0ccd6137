import { performance } from "node:perf_hooks";
import { BehaviorSubject, filter, firstValueFrom, map, Subject, takeUntil, timeout, type Observable, type Subscription } from "rxjs";
import WebSocket from "ws";
import type { Instruments } from "../metrics/instruments.js";
import type { Logger } from "../log/logger.js";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { resolveCapabilities, type GatewayHello, type PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import { redactUrl, urlHasToken } from "../config/index.js";
import { FRAME_CEILING_BYTES } from "../config/sections/gateway.js";
import type { IngressRules, PlatformPort, SendOptions } from "../platforms/platformPort.js";
import { SendError } from "../wire/index.js";
import { charsPerMessage } from "../platforms/charsPerMessage.js";
import { acceptHello, clientHelloFrame } from "./helloNegotiation.js";
import { keepalive, pongsOf } from "./keepalive.js";
import { receiveFrame, type FrameSink } from "./receiveFrame.js";
import { defaultBackoff, planReconnect, type BackoffPolicy } from "./reconnectBackoff.js";
import { fileNoticeReply } from "./fileNoticeReply.js";
import { gatewayUrl } from "./replyFrame.js";
import { ReplyWriter } from "./replyWriter.js";

export interface GatewayConnectorOptions {
  readonly url: string;
  /** The skip and trust rules for the gateway's events (the `[gateway]` section's keys). */
  readonly ingress: IngressRules;
  readonly token?: string;
  readonly logger: Logger;
  /**
   * Frames larger than this are read, then handled without their inline attachments (or dropped);
   * the connection stays up. At most `frameCeilingBytes`.
   */
  readonly maxFrameBytes: number;
  /**
   * The largest message the socket reads (ws' `maxPayload`); a bigger one closes it. Also the
   * largest reply frame written: a file whose frame is bigger is refused (`file_too_large`).
   * Default `FRAME_CEILING_BYTES`.
   */
  readonly frameCeilingBytes?: number;
  readonly clientVersion: string;
  /** Without a capability handshake: how long to wait for an ack before counting the send as sent (upstream: 5 s). */
  readonly legacyAckTimeoutMs: number;
  /** With a handshake that requires acks: how long before the send fails (`[gateway] gateway_ack_timeout_secs`). */
  readonly requiredAckTimeoutMs: number;
  readonly streaming: boolean;
  readonly streamingPlaceholder: boolean;
  /**
   * Reconnect backoff: doubles from `initialMs` to `maxMs` (upstream: 1 s → 30 s); it resets only
   * after a connection stayed up `healthyAfterMs` (10 s).
   */
  readonly backoff?: Partial<BackoffPolicy>;
  /** A ping this often; two missed pongs abandon the connection (`[gateway] keepalive_secs`; 0 disables; default 30 s). */
  readonly keepaliveMs?: number;
  /** Counts frames dropped as unusable events (`invalid`); default: nothing. */
  readonly instruments?: Instruments;
}

/** Pongs missed in a row before a connection counts as dead. */
const maxMissedPongs = 2;

/**
 * The WebSocket client to an OpenAB gateway: connects (token as a query parameter), reconnects with
 * backoff, offers the capability handshake, validates every frame, emits events, and sends reply
 * frames — waiting for the `response.v1` ack by `request_id` when one is wanted or required. The
 * gateway's platform port: it carries replies for any platform its events name.
 */
export class GatewayConnector implements PlatformPort {
  readonly name = "gateway";
  readonly platforms = undefined;
  readonly #options: GatewayConnectorOptions;
  readonly #events = new Subject<GatewayEvent>();
  readonly #writer: ReplyWriter;
  readonly #connected = new BehaviorSubject(false);
  #socket: WebSocket | undefined;
  #hello: GatewayHello | undefined;
  /** Where `receiveFrame` hands each usable frame. */
  readonly #frames: FrameSink = {
    event: (event) => this.#events.next(event),
    response: (response) => this.#writer.acknowledge(response),
    hello: (hello) => this.#negotiate(hello),
  };
  readonly #backoff: BackoffPolicy;
  #backoffMs: number;
  #reconnect: NodeJS.Timeout | undefined;
  #keepalive: Subscription | undefined;
  #closing = false;
  readonly #shutdown = new Subject<void>();

  /** Every valid `event.v1` from the gateway, across reconnects. */
  readonly events: Observable<GatewayEvent> = this.#events.asObservable();
  /** Whether a socket is open now. */
  readonly connected: Observable<boolean> = this.#connected.asObservable();
  readonly ingress: IngressRules;

  constructor(options: GatewayConnectorOptions) {
    this.#options = options;
    this.ingress = options.ingress;
    this.#writer = new ReplyWriter(options);
    this.#backoff = { ...defaultBackoff, ...options.backoff };
    this.#backoffMs = this.#backoff.initialMs;
  }

  start(): void {
    // A `?token=` written into gateway.url authenticates as well as gateway.token does.
    if (this.#options.token === undefined && !urlHasToken(this.#options.url)) {
      this.#options.logger.warn("gateway.token not set — WebSocket connection is NOT authenticated");
    }
    this.#connect();
  }

  get isConnected(): boolean {
    return this.#connected.value;
  }

  /** The platform's negotiated capabilities, or undefined in legacy mode (no valid hello on this connection). */
  capabilities(platform: string): PlatformCapabilities | undefined {
    if (this.#hello === undefined) return undefined;
    return resolveCapabilities(this.#hello, platform, {
      streaming: this.#options.streaming,
      streamingPlaceholder: this.#options.streamingPlaceholder,
    });
  }

  /** Characters per message on `platform` (see `charsPerMessage`). */
  messageLimit(platform: string): number {
    return charsPerMessage(this.capabilities(platform));
  }

  /**
   * Posts a message. With `wantAck` (bubble modes, streaming) or when the handshake requires it, the
   * frame carries a `request_id` and the promise settles with the gateway's ack; otherwise it
   * resolves once written. Rejects with `SendError` when the gateway refuses or cannot be reached.
   * Between connections it waits for the next one, up to the legacy ack timeout; the ack timeouts
   * count from the call, so a send takes no longer than before. A file (`message.attachment`, its
   * bytes in `options.file`) goes inline in the frame where the platform's hello says
   * `supports_outbound_attachments`; elsewhere, in legacy mode, or without its bytes, the message
   * is its notice line instead (`fileNoticeReply`).
   */
  send(message: OutboundMessage, options: SendOptions): Promise<SendReceipt> {
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState === WebSocket.OPEN) return this.#post(socket, message, options, 0);
    if (this.#closing) return Promise.reject(disconnected());
    const called = performance.now();
    return this.#nextConnection(this.#options.legacyAckTimeoutMs).then((next) => this.#post(next, message, options, performance.now() - called));
  }

  /** The next open socket, or a `disconnected` failure when none opens within `waitMs` or the connector closes. */
  #nextConnection(waitMs: number): Promise<WebSocket> {
    const open = this.#connected.pipe(
      map(() => this.#socket),
      filter((socket): socket is WebSocket => socket?.readyState === WebSocket.OPEN),
      timeout({ first: waitMs }),
      takeUntil(this.#shutdown),
    );
    return firstValueFrom(open).catch((err: unknown) => Promise.reject(disconnected(err)));
  }

  /** Decided on the connection the frame goes out on: its hello says whether the platform takes files. */
  #post(socket: WebSocket, message: OutboundMessage, options: SendOptions, waitedMs: number): Promise<SendReceipt> {
    const capabilities = this.capabilities(message.platform);
    const attachment = message.command === undefined ? message.attachment : undefined;
    if (attachment === undefined || (capabilities?.outboundFiles === true && options.file !== undefined)) {
      return this.#writer.post(socket, message, capabilities, options, waitedMs);
    }
    // The edge reads no bytes for a platform it saw without the capability; this connection may have it now.
    const reason = capabilities?.outboundFiles === true ? "file_not_read" : "files_unsupported";
    this.#options.logger.info({ reason, platform: message.platform, size: attachment.size, legacy: capabilities === undefined }, "file not sent over the gateway; its notice sent instead");
    return this.#writer.post(socket, fileNoticeReply(message, attachment), capabilities, { wantAck: options.wantAck }, waitedMs);
  }

  /** Stops reconnecting and closes the socket; waiting sends settle as if the channel closed. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#shutdown.next();
    clearTimeout(this.#reconnect);
    this.#keepalive?.unsubscribe();
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState !== WebSocket.CLOSED) {
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.close(1000, "broker shutting down");
      const forced = setTimeout(() => socket.terminate(), 1_000);
      await closed;
      clearTimeout(forced);
    }
    this.#events.complete();
  }

  #connect(): void {
    if (this.#closing) return;
    const { logger } = this.#options;
    // Every frame up to the ceiling is read whole, so one over `maxFrameBytes` costs its own event at most.
    const ceilingBytes = this.#options.frameCeilingBytes ?? FRAME_CEILING_BYTES;
    // ws closes the whole connection (1007) on a text frame that is not UTF-8: `receiveFrame` drops that frame alone.
    const socket = new WebSocket(gatewayUrl(this.#options.url, this.#options.token), { maxPayload: ceilingBytes, skipUTF8Validation: true });
    this.#socket = socket;
    let openedAt: number | undefined;
    let abandoned = false;
    let watch: Subscription | undefined;
    socket.on("open", () => {
      openedAt = performance.now();
      this.#hello = undefined;
      this.#writer.connectionOpened();
      this.#connected.next(true);
      // Never the token or user info, whether configured as gateway.token or written into gateway.url.
      logger.info({ url: redactUrl(this.#options.url) }, "connected to gateway");
      watch = this.#watch(socket, () => (abandoned = true));
      this.#keepalive = watch;
      socket.send(clientHelloFrame(this.#options.clientVersion));
    });
    socket.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
      if (!isBinary) receiveFrame(data, this.#options, this.#frames);
    });
    socket.on("error", (err) => {
      // ws closes the connection (1009) on a message past `maxPayload`: nothing else can skip it.
      if ((err as { code?: unknown }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
        logger.warn({ reason: "frame_over_ceiling", ceilingBytes }, "gateway frame over the connector's ceiling; reconnecting");
      } else if (openedAt === undefined) logger.warn({ err, backoffMs: this.#backoffMs }, "gateway connection failed, retrying");
      else logger.warn({ err }, "gateway socket error");
    });
    socket.on("close", (code) => {
      watch?.unsubscribe();
      this.#connected.next(false);
      this.#hello = undefined;
      this.#writer.connectionClosed(abandoned);
      if (this.#closing) return;
      const end = openedAt === undefined ? { opened: false as const } : { opened: true as const, upMs: Math.round(performance.now() - openedAt) };
      const plan = planReconnect(this.#backoffMs, end, this.#backoff);
      this.#backoffMs = plan.nextBackoffMs;
      // One warning per attempt, and attempts are spaced by the backoff: a flapping gateway logs once per step.
      if (end.opened) logger.warn({ code, upMs: end.upMs, retryInMs: plan.delayMs }, "gateway disconnected");
      this.#reconnect = setTimeout(() => this.#connect(), plan.delayMs);
    });
  }

  /** Pings an open socket; terminates it when pongs stop (a gateway that stopped reading or answering). */
  #watch(socket: WebSocket, onAbandon: () => void): Subscription | undefined {
    const intervalMs = this.#options.keepaliveMs ?? 30_000;
    if (intervalMs <= 0) return undefined;
    return keepalive(pongsOf(socket), { intervalMs, maxMissed: maxMissedPongs }).subscribe((signal) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      if (signal.kind === "ping") {
        socket.ping();
        return;
      }
      this.#options.logger.warn({ reason: "keepalive_timeout", missedPongs: signal.missedPongs, keepaliveMs: intervalMs }, "gateway keepalive timed out");
      onAbandon();
      socket.terminate();
    });
  }

  /** A hello that does not negotiate leaves the connection as it was (legacy mode, unless an earlier hello negotiated). */
  #negotiate(hello: GatewayHello | undefined): void {
    const accepted = acceptHello(hello, this.#options.logger);
    if (accepted !== undefined) this.#hello = accepted;
  }
}

function disconnected(cause?: unknown): SendError {
  return new SendError("disconnected", "the gateway is not connected", cause === undefined ? undefined : { cause });
}
