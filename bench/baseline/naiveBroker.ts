import { EventEmitter } from "node:events";
import WebSocket from "ws";
import {
  admit,
  parseGatewayFrame,
  sessionKey,
  skipReason,
  triageKey,
  trustDecision,
  type GatewayEvent,
  type SkipConfig,
  type TriageSettings,
  type TriageState,
  type TrustConfig,
} from "../../operators/index.js";

export interface NaiveBrokerOptions {
  readonly gatewayUrl: string;
  readonly gateway: SkipConfig & TrustConfig;
  readonly triage: TriageSettings;
  /** The agent: called once per turn, in the session's order. */
  readonly agent: (sessionKey: string, event: GatewayEvent) => Promise<void>;
  readonly maxFrameBytes?: number;
  /** The msg-id duplicate window (turnstream's default `[bus] duplicate_window_secs`: 120 s). */
  readonly duplicateWindowMs?: number;
}

/**
 * The naive broker the ingress benchmark compares turnstream with: what one would write without
 * RxJS or a bus — a `ws` client, `async`/`await`, an `EventEmitter` between the edge and the
 * worker, and a per-session-key promise chain (grammY's `sequentialize`) for one turn at a time
 * per conversation. It reuses turnstream's pure functions, so it validates and decides exactly as
 * turnstream does: `parseGatewayFrame` (the same zod schema), `skipReason`, `trustDecision`,
 * `sessionKey`, the same msg-id duplicate window (`platform:event_id`, 120 s), and triage's
 * `admit` on a Map of per-conversation `TriageState`. Like turnstream on the embedded bus it keeps
 * no delivery ledger (nothing outlives the process). It emits `settled` for every event whose turn
 * finished (or that triage settled without one).
 *
 * What it does not have (and turnstream does): reconnects and backoff, send acks, durable queueing
 * or redelivery, queue modes other than follow-up, partitions and leases, stages for user
 * operators, graceful shutdown, logging.
 */
export class NaiveBroker extends EventEmitter {
  readonly #options: NaiveBrokerOptions;
  readonly #maxFrameBytes: number;
  readonly #windowMs: number;
  /** msgId → when first queued; Map order is time order, so expiry drops from the front. */
  readonly #queued = new Map<string, number>();
  /** sessionKey → the tail of that session's promise chain; removed when the chain is idle. */
  readonly #lanes = new Map<string, Promise<void>>();
  readonly #triage = new Map<string, TriageState>();
  #socket: WebSocket | undefined;

  constructor(options: NaiveBrokerOptions) {
    super();
    this.#options = options;
    this.#maxFrameBytes = options.maxFrameBytes ?? 4 * 1024 * 1024;
    this.#windowMs = options.duplicateWindowMs ?? 120_000;
    this.on("queued", (event: GatewayEvent) => this.#enqueue(event));
  }

  async start(): Promise<void> {
    const socket = new WebSocket(this.#options.gatewayUrl);
    this.#socket = socket;
    socket.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
      if (!isBinary) void this.#receive(data as Buffer);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    socket.send(JSON.stringify({ schema: "openab.gateway.client_hello.v1", protocol_version: 1, client_name: "naive/0", requested_platforms: [] }));
  }

  async stop(): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.close(1000);
    await closed;
    await Promise.all(this.#lanes.values());
  }

  /** The edge: validate, skip, trust, then queue with msg-id dedupe. */
  async #receive(raw: Buffer): Promise<void> {
    const frame = parseGatewayFrame(raw, this.#maxFrameBytes);
    if (frame.kind !== "event") return;
    const event = frame.event;
    if (skipReason(event, this.#options.gateway) !== undefined) return;
    if (trustDecision(event, this.#options.gateway) !== "allow") return;
    if (!this.#firstSighting(`${event.platform}:${event.event_id}`, Date.now())) return;
    this.emit("queued", event);
  }

  #firstSighting(msgId: string, now: number): boolean {
    for (const [id, at] of this.#queued) {
      if (now - at < this.#windowMs) break;
      this.#queued.delete(id);
    }
    if (this.#queued.has(msgId)) return false;
    this.#queued.set(msgId, now);
    return true;
  }

  /** The worker: one turn at a time per session key, sessions side by side. */
  #enqueue(event: GatewayEvent): void {
    const key = sessionKey(event);
    const next = (this.#lanes.get(key) ?? Promise.resolve()).then(() => this.#turn(key, event));
    this.#lanes.set(key, next);
    void next.then(() => {
      if (this.#lanes.get(key) === next) this.#lanes.delete(key);
    });
  }

  async #turn(key: string, event: GatewayEvent): Promise<void> {
    try {
      // A suppressed proactive event settles without a turn.
      if (!event.proactive || this.#admitted(event)) await this.#options.agent(key, event);
    } catch (err) {
      this.emit("turnFailed", event, err); // a failed turn is settled like a finished one
    }
    this.emit("settled", event);
  }

  /** Triage of a proactive event: `admit` on the conversation's state, written back when it changed. */
  #admitted(event: GatewayEvent): boolean {
    const key = triageKey(event);
    const before = this.#triage.get(key);
    const { verdict, state } = admit(before, event.event_id, this.#options.triage, Date.now());
    if (state !== before) this.#triage.set(key, state);
    return verdict.decision === "wake";
  }
}
