import type { WebSocket } from "ws";
import { isObject } from "./formErrors.js";
import type { GatewaySession, GatewaySessions, SentDispatch, SessionLink } from "./gatewaySessions.js";
import { intentsRefusal } from "./intents.js";

/** Gateway opcodes (docs: Topics › Opcodes and Status Codes › Gateway Opcodes). */
export const OP = { DISPATCH: 0, HEARTBEAT: 1, IDENTIFY: 2, PRESENCE_UPDATE: 3, VOICE_STATE_UPDATE: 4, RESUME: 6, RECONNECT: 7, REQUEST_GUILD_MEMBERS: 8, INVALID_SESSION: 9, HELLO: 10, HEARTBEAT_ACK: 11, REQUEST_SOUNDBOARD_SOUNDS: 31, REQUEST_CHANNEL_INFO: 43 } as const;

/** Gateway close codes and their descriptions (docs: … › Gateway Close Event Codes). */
export const CLOSE_REASON: Readonly<Record<number, string>> = {
  4000: "Unknown error",
  4001: "Unknown opcode",
  4002: "Decode error",
  4003: "Not authenticated",
  4004: "Authentication failed",
  4005: "Already authenticated",
  4007: "Invalid seq",
  4008: "Rate limited",
  4009: "Session timed out",
  4010: "Invalid shard",
  4011: "Sharding required",
  4012: "Invalid API version",
  4013: "Invalid intent(s)",
  4014: "Disallowed intent(s)",
};

/** Send ops a client may use once identified; anything not listed here, 1, 2 or 6 is an unknown opcode. */
const LATER_SEND_OPS = new Set<number>([OP.PRESENCE_UPDATE, OP.VOICE_STATE_UPDATE, OP.REQUEST_GUILD_MEMBERS, OP.REQUEST_SOUNDBOARD_SOUNDS, OP.REQUEST_CHANNEL_INFO]);

/** What a connection asks of the fake. */
export interface GatewayHost {
  readonly sessions: GatewaySessions;
  readonly heartbeatIntervalMs: number;
  /** Privileged intents enabled for the bot in the Developer Portal. */
  readonly privilegedIntents: number;
  /** While true, heartbeats go unacknowledged (a zombied connection, as a client sees one). */
  readonly acksWithheld: boolean;
  readonly now: () => number;
  tokenAccepted(token: unknown): boolean;
  /** Whether an IDENTIFY may start a session now: max_concurrency 1 per identify window, as Discord limits. */
  admitIdentify(): boolean;
  /** Sends READY and the GUILD_CREATEs that follow to a new session. */
  handshake(session: GatewaySession): void;
}

/** What a client sent, for tests to read back. */
export interface ReceivedPayload {
  readonly op: number;
  readonly d: unknown;
  readonly at: number;
}

/**
 * One WebSocket connection speaking gateway v10 in JSON: HELLO, then heartbeats acknowledged and a deadline
 * for the next one, IDENTIFY or RESUME checked as Discord checks them (each refusal its close code), then
 * dispatches. 120 payloads per 60 s, 4096 bytes each, as Discord allows.
 */
export class GatewayConnection implements SessionLink {
  session: GatewaySession | undefined;
  readonly received: ReceivedPayload[] = [];
  /** The close code, once closed (by either side; 1006 when the socket just dropped). */
  closeCode: number | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private readonly payloadTimes: number[] = [];

  constructor(
    readonly id: number,
    /** The URL path it connected to: the gateway's, or the resume URL's. */
    readonly path: string,
    private readonly socket: WebSocket,
    private readonly host: GatewayHost,
  ) {}

  get open(): boolean {
    return this.closeCode === undefined;
  }

  start(): void {
    this.socket.on("message", (data, isBinary) => this.onPayload(data as Buffer, isBinary));
    this.socket.on("close", (code) => this.onClosed(code));
    this.socket.on("error", () => undefined);
    this.send({ op: OP.HELLO, d: { heartbeat_interval: this.host.heartbeatIntervalMs }, s: null, t: null });
    this.armDeadline();
  }

  sendDispatch(dispatch: SentDispatch): void {
    this.send({ op: OP.DISPATCH, d: dispatch.d, s: dispatch.s, t: dispatch.t });
  }

  /** Sends an op 7 Reconnect: the client should drop this connection and resume elsewhere. */
  reconnect(): void {
    this.send({ op: OP.RECONNECT, d: null, s: null, t: null });
  }

  /** Sends an op 9 Invalid Session; `resumable` false also ends the session. The connection stays open. */
  invalidate(resumable: boolean): void {
    if (this.session) this.host.sessions.detach(this.session, this, !resumable);
    this.session = undefined;
    this.send({ op: OP.INVALID_SESSION, d: resumable, s: null, t: null });
  }

  /** Asks the client for a heartbeat now (op 1 from the server). */
  requestHeartbeat(): void {
    this.send({ op: OP.HEARTBEAT, d: null, s: null, t: null });
  }

  /** Closes with a gateway close code and its description; the session stays resumable unless invalidated. */
  close(code: number, invalidateSession = false): void {
    if (!this.open) return;
    if (this.session) this.host.sessions.detach(this.session, this, invalidateSession);
    this.session = undefined;
    this.socket.close(code, CLOSE_REASON[code] ?? "");
  }

  /** Drops the TCP connection without a close frame, as a network failure does. */
  drop(): void {
    this.socket.terminate();
  }

  private onPayload(data: Buffer, isBinary: boolean): void {
    if (!this.open) return;
    const at = this.host.now();
    this.payloadTimes.push(at);
    while (this.payloadTimes.length > 0 && this.payloadTimes[0]! <= at - 60_000) this.payloadTimes.shift();
    if (this.payloadTimes.length > 120) return this.close(4008);
    if (isBinary || data.length > 4096) return this.close(4002);
    let payload: unknown;
    try {
      payload = JSON.parse(data.toString("utf8"));
    } catch {
      return this.close(4002);
    }
    if (!isObject(payload) || typeof payload.op !== "number") return this.close(4002);
    this.received.push({ op: payload.op, d: payload.d, at });
    switch (payload.op) {
      case OP.HEARTBEAT:
        return this.heartbeat(payload.d);
      case OP.IDENTIFY:
        return this.identify(payload.d);
      case OP.RESUME:
        return this.resume(payload.d);
      default:
        if (!LATER_SEND_OPS.has(payload.op)) return this.close(4001);
        if (!this.session) return this.close(4003);
    }
  }

  private heartbeat(d: unknown): void {
    if (d !== null && d !== undefined && !Number.isInteger(d)) return this.close(4001);
    this.armDeadline();
    if (!this.host.acksWithheld) this.send({ op: OP.HEARTBEAT_ACK });
  }

  private identify(d: unknown): void {
    if (this.session) return this.close(4005);
    if (!isObject(d) || !isObject(d.properties)) return this.close(4001);
    if (!this.host.tokenAccepted(d.token)) return this.close(4004);
    const refused = intentsRefusal(d.intents, this.host.privilegedIntents);
    if (refused) return this.close(refused);
    const shard = readShard(d.shard);
    if (!shard) return this.close(4010);
    // Too many IDENTIFYs for max_concurrency: Discord answers op 9 and keeps the connection.
    if (!this.host.admitIdentify()) return this.send({ op: OP.INVALID_SESSION, d: false, s: null, t: null });
    const session = this.host.sessions.create(d.intents as number, shard, d.shard !== undefined);
    this.take(session);
    this.host.handshake(session);
  }

  private resume(d: unknown): void {
    if (this.session) return this.close(4005);
    if (!isObject(d)) return this.close(4001);
    if (!this.host.tokenAccepted(d.token)) return this.close(4004);
    const session = this.host.sessions.resumable(d.session_id);
    if (!session) return this.send({ op: OP.INVALID_SESSION, d: false, s: null, t: null });
    if (!Number.isInteger(d.seq) || (d.seq as number) > session.seq || (d.seq as number) < 0) return this.close(4007);
    this.take(session);
    for (const dispatch of session.log) if (dispatch.s > (d.seq as number)) this.sendDispatch(dispatch);
    this.host.sessions.send(session, "RESUMED", {});
  }

  /** Holds a session; one held by another connection is taken from it (the fake closes that one, 4000). */
  private take(session: GatewaySession): void {
    const holder = session.link;
    if (holder && holder !== this && holder instanceof GatewayConnection) holder.close(4000);
    this.session = session;
    this.host.sessions.attach(session, this);
  }

  private onClosed(code: number): void {
    clearTimeout(this.deadline);
    this.closeCode = code;
    // A client closing with 1000 or 1001 ends its session; any other code leaves it resumable (docs: Disconnecting).
    if (this.session) this.host.sessions.detach(this.session, this, code === 1000 || code === 1001);
    this.session = undefined;
  }

  /**
   * A heartbeat is due within the interval (the first one after a random jitter of it); the fake allows half
   * an interval more before it closes. The docs name no close code for a missed heartbeat, only that the
   * app "will be forced to Resume": the fake closes with 4009 Session timed out and keeps the session.
   */
  private armDeadline(): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.close(4009), this.host.heartbeatIntervalMs * 1.5);
  }

  private send(payload: object): void {
    if (this.open && this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(payload));
  }
}

function readShard(value: unknown): readonly [number, number] | undefined {
  if (value === undefined || value === null) return [0, 1];
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [id, count] = value as unknown[];
  if (!Number.isInteger(id) || !Number.isInteger(count) || (count as number) < 1 || (id as number) < 0 || (id as number) >= (count as number)) return undefined;
  return [id as number, count as number];
}
