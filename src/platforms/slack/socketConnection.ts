import { setTimeout as sleep } from "node:timers/promises";
import { SocketModeClient } from "@slack/socket-mode";
import type { Logger } from "../../log/logger.js";
import { libraryLogger } from "./libraryLogger.js";
import { failureDetail, isTokenRejected, slackApiFailure } from "./slackApiFailure.js";

/** Reconnection delays: upstream's newer backoff, 1 s doubling to 30 s, back to the start after a connection that stayed up. */
export interface SocketBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_SOCKET_BACKOFF: SocketBackoff = { initialMs: 1_000, maxMs: 30_000 };

/** How long a connection must have stayed up for the next one to be opened at once (the gateway connector's rule). */
const STABLE_CONNECTION_MS = 10_000;

export interface SocketConnectionOptions {
  /** `xapp-…`: `apps.connections.open` takes only this token. */
  readonly appToken: string;
  /** `[slack] api_root`, where `apps.connections.open` is asked. */
  readonly apiRoot: string;
  /** Before each connection: resolves once the adapter is ready for events (the bot known). */
  readonly ready: (signal: AbortSignal) => Promise<void>;
  /** Each Events API payload, after its envelope was acknowledged. */
  readonly payload: (payload: unknown) => void;
  /** Each interactive payload (a button tapped, …), after its envelope was acknowledged. */
  readonly interactive: (payload: unknown) => void;
  /** Whether a Socket Mode connection is open now. */
  readonly state: (up: boolean) => void;
  readonly logger: Logger;
  readonly backoff?: SocketBackoff;
  /** How long `apps.connections.open` may take. */
  readonly callTimeoutMs?: number;
}

/**
 * `@slack/socket-mode` 3.1.0 with two limitations worked around here, in one place:
 * - A malformed `events_api` envelope (no `payload.event`) makes its message handler throw inside an
 *   async listener: an unhandled rejection, which stops a Node process. This subclass catches it:
 *   the envelope is logged and dropped (Slack sends it again, then gives up).
 * - Its own reconnection calls `start()` from a timer without catching, so a failed reconnect (a
 *   revoked app token) is an unhandled rejection too. It runs with `autoReconnectEnabled: false`;
 *   `SocketConnection` reconnects instead.
 */
class GuardedSocketModeClient extends SocketModeClient {
  readonly #malformed: (err: unknown) => void;

  constructor(options: ConstructorParameters<typeof SocketModeClient>[0], malformed: (err: unknown) => void) {
    super(options);
    this.#malformed = malformed;
  }

  override async onWebSocketMessage(data: string | ArrayBuffer, isBinary: boolean): Promise<void> {
    try {
      await super.onWebSocketMessage(data, isBinary);
    } catch (err) {
      this.#malformed(err);
    }
  }
}

interface SlackEnvelope {
  readonly ack: () => Promise<void>;
  readonly type: string;
  readonly body: unknown;
}

/**
 * The bot's Socket Mode connection (§3.2): `apps.connections.open` with the app-level token, the
 * WebSocket it names, and every envelope acknowledged at once, before anything is done with it —
 * Slack's protocol (it sends an unacknowledged envelope again within seconds; a tap not
 * acknowledged within 3 s shows the person an error). `events_api` and `interactive` envelopes go
 * on; slash commands are acknowledged and ignored, as upstream. A connection that closes (Slack's
 * `disconnect`, a network cut, a missed pong) is opened again after the backoff, through a new
 * `apps.connections.open`, until `stop`.
 */
export class SocketConnection {
  readonly #options: SocketConnectionOptions;
  readonly #backoff: SocketBackoff;
  #run: { readonly stop: AbortController; readonly done: Promise<void> } | undefined;

  constructor(options: SocketConnectionOptions) {
    this.#options = options;
    this.#backoff = options.backoff ?? DEFAULT_SOCKET_BACKOFF;
  }

  get running(): boolean {
    return this.#run !== undefined;
  }

  /** Connects, and keeps connecting until `stop`; a no-op while running. */
  start(): void {
    if (this.#run !== undefined) return;
    const stop = new AbortController();
    this.#run = { stop, done: this.#keepConnected(stop.signal) };
  }

  /** Closes the connection (a close frame) and stops reconnecting; resolves once closed. */
  async stop(): Promise<void> {
    const run = this.#run;
    if (run === undefined) return;
    run.stop.abort();
    await run.done;
    if (this.#run === run) this.#run = undefined;
  }

  async #keepConnected(signal: AbortSignal): Promise<void> {
    const { logger } = this.#options;
    let failures = 0;
    while (!signal.aborted) {
      let upMs: number | undefined;
      try {
        await this.#options.ready(signal);
        if (signal.aborted) break;
        await this.#connectOnce(signal, (ms) => (upMs = ms));
      } catch (err) {
        if (signal.aborted) break;
        const failure = slackApiFailure(err);
        const fields = { reason: isTokenRejected(failure) ? "app_token_rejected" : "connect_failed", ...failureDetail(failure) };
        if (failures === 0 || isTokenRejected(failure)) logger.warn(fields, "slack socket not connected; trying again");
      }
      if (signal.aborted) break;
      // Only a connection that stayed up a while resets the backoff: one that Slack (or a proxy)
      // accepts and closes at once is not reopened in a tight loop.
      failures = upMs !== undefined && upMs >= STABLE_CONNECTION_MS ? 0 : failures + 1;
      if (failures > 0) await sleep(Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** (failures - 1)), undefined, { signal }).catch(() => undefined);
    }
  }

  /** One connection, from `apps.connections.open` to its close; resolves when it closed (or `signal` closed it). */
  async #connectOnce(signal: AbortSignal, closedAfter: (upMs: number) => void): Promise<void> {
    const { logger, appToken, apiRoot } = this.#options;
    const client = new GuardedSocketModeClient(
      {
        appToken,
        autoReconnectEnabled: false,
        logger: libraryLogger(logger, "socket-mode"),
        clientOptions: { slackApiUrl: apiRoot, retryConfig: { retries: 0 }, timeout: this.#options.callTimeoutMs ?? 10_000, rejectRateLimitedCalls: true },
      },
      () => logger.warn({ reason: "malformed_envelope" }, "slack envelope dropped"),
    );
    const closed = new Promise<void>((resolve) => client.once("disconnected", () => resolve()));
    client.on("slack_event", (envelope: SlackEnvelope) => this.#envelope(envelope));
    client.on("error", () => undefined);
    const onAbort = () => void client.disconnect();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await client.start();
      // Stopped while connecting: the client may have opened after its disconnect was asked for.
      if (signal.aborted) return;
      const since = Date.now();
      this.#options.state(true);
      logger.info({}, "slack socket connected");
      await closed;
      closedAfter(Date.now() - since);
      if (!signal.aborted) logger.warn({ reason: "socket_closed" }, "slack socket closed; reconnecting");
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#options.state(false);
      await client.disconnect().catch(() => undefined);
    }
  }

  #envelope(envelope: SlackEnvelope): void {
    envelope.ack().catch(() => this.#options.logger.debug({ reason: "ack_failed", type: envelope.type }, "slack envelope not acknowledged"));
    if (envelope.type === "events_api") this.#options.payload(envelope.body);
    else if (envelope.type === "interactive") this.#options.interactive(envelope.body);
    else this.#options.logger.debug({ reason: "unsupported_type", type: envelope.type }, "slack envelope ignored");
  }
}
