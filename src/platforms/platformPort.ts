import type { Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { SkipConfig } from "../../operators/ingress/skipEvent.js";
import type { TrustConfig } from "../../operators/ingress/trustGate.js";

/** The structural skip rules and the trust gate an edge applies to a port's events. */
export interface IngressRules extends SkipConfig, TrustConfig {
  /** How long one sender's "not trusted" notice silences the next ones; default the gateway's (`DENY_ECHO_WINDOW_MS`). */
  readonly denyEchoWindowMs?: number;
}

/**
 * Where an edge's events come from and its replies go: the OpenAB gateway's WebSocket
 * (`gateway/connector.ts`), or a chat platform spoken to natively (`platforms/<name>/`). Every
 * port speaks the broker's vocabulary: its events are `GatewayEvent`s with the session keys the
 * OpenAB gateway gives that platform, and each reply operation (send, send with a quote, edit,
 * delete, reactions, create topic) is answered as the gateway acks one — a `SendReceipt`, or a
 * `SendError` with the gateway's `error_code` and `retryAfterMs` (a rejection to retry later), or
 * code `unknown` when the write's fate is not known (never retried).
 */
export interface PlatformPort {
  /** For logs, readiness and metrics: `gateway`, `telegram`, … */
  readonly name: string;
  /** The platforms whose replies this port carries; `undefined` for the gateway, which carries any platform its events name. */
  readonly platforms: readonly string[] | undefined;
  /** The skip and trust rules for this port's events; read per event, so a port may learn them late (a bot's own username). */
  readonly ingress: IngressRules;
  /** Inbound events, in the order the platform gave them; completes when the port closes. */
  readonly events: Observable<GatewayEvent>;
  /** Whether the port can carry replies now, and each change. */
  readonly connected: Observable<boolean>;
  readonly isConnected: boolean;
  /** A platform's capabilities as a gateway hello states them; undefined where nothing was negotiated (legacy). */
  capabilities(platform: string): PlatformCapabilities | undefined;
  /** The largest reply, in characters, the splitter may send to `platform`. */
  messageLimit(platform: string): number;
  /**
   * Carries out one reply operation; rejects with `SendError` when it was not done. A message with
   * an `attachment` comes with its bytes in `options.file` (the edge read them from the bus's file
   * store); a port that cannot post files sends the notice line instead (`fileNotice`), and one
   * the platform refuses as too big rejects with code `file_too_large`.
   */
  send(message: OutboundMessage, options: SendOptions): Promise<SendReceipt>;
  /**
   * Told once for each event the port emitted, when the edge is done with it: durably queued for its
   * turn, or never to be (skipped, denied, refused, dropped by a stage). A port that must confirm
   * receipt to its platform (Telegram's update offset) confirms nothing before this. Absent: the
   * port has nothing to confirm.
   */
  settled?(event: GatewayEvent): void;
  /**
   * Present where the platform lets one connection per bot receive (Telegram's `getUpdates`: a
   * second poller gets 409 Conflict). With several edges on a shared bus, one receives at a time:
   * the others start with `{ receive: false }` and stand by, and a lease starts and stops it here.
   */
  readonly receiver?: SoleReceiver;
  /**
   * What the port checks before the broker starts, before `start`: rejects (a `ConfigError`) when
   * the platform refuses the bot's token or the port cannot listen, so start-up stops with one line
   * instead of running a broker that can never answer. Absent: nothing to check.
   */
  prepare?(): Promise<void>;
  /**
   * Connects and starts emitting events. With `receive: false` (a port with a `receiver`) it only
   * readies its sends; `receiver.startReceiving()` starts the events.
   */
  start(options?: { readonly receive?: boolean }): void;
  /** Disconnects; `events` completes. */
  close(): Promise<void>;
}

/** How a port carries out one send. */
export interface SendOptions {
  /** Wait for the platform's ack (a gateway may be asked not to). */
  readonly wantAck: boolean;
  /** The bytes of `message.attachment`, exactly `attachment.size` of them; absent otherwise. */
  readonly file?: Uint8Array;
}

/** Receiving, apart from the rest of a port, for a platform that allows one receiving connection per bot. */
export interface SoleReceiver {
  /** The bot's connection as dot-separated key tokens, nothing secret in it: `telegram.<bot id>`. */
  readonly key: string;
  /** Starts emitting events; a no-op while receiving. */
  startReceiving(): void;
  /**
   * Stops at once and resolves once stopped; what the platform must still hear (a last
   * confirmation of what was settled) is said within `withinMs`, or not at all when 0.
   */
  stopReceiving(withinMs: number): Promise<void>;
}
