import type { GatewayHost } from "./gatewayConnection.js";
import { guildCreateData, readyData } from "./gatewayEvents.js";
import { GatewayServer } from "./gatewayServer.js";
import { shardOf, type GatewaySession, type GatewaySessions, type SentDispatch } from "./gatewaySessions.js";
import { INTENT } from "./intents.js";
import type { World } from "./world.js";

export interface BotGatewayOptions {
  readonly token: string;
  readonly heartbeatIntervalMs: number;
  readonly identifyIntervalMs: number;
  readonly resumeGatewayUrl: () => string;
  readonly tokenRevoked: () => boolean;
}

/**
 * The bot's side of the gateway: who may IDENTIFY (the token, one IDENTIFY per identify window), the
 * handshake a new session gets, what its sessions were sent, how many ran at once, and what a test does to
 * the connections (op 7, op 9, a close code, a dropped socket, a heartbeat request, withheld ACKs).
 */
export class BotGateway implements GatewayHost {
  readonly server: GatewayServer;
  /** IDENTIFYs that started a session. */
  identifies = 0;
  /** While true, heartbeats get no op 11 ACK: the client should see a zombied connection. */
  acksWithheld = false;
  private lastIdentifyAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly world: World,
    private readonly options: BotGatewayOptions,
  ) {
    this.server = new GatewayServer(this);
  }

  get sessions(): GatewaySessions {
    return this.world.sessions;
  }

  get heartbeatIntervalMs(): number {
    return this.options.heartbeatIntervalMs;
  }

  get privilegedIntents(): number {
    return this.world.privilegedIntents;
  }

  get now(): () => number {
    return this.world.now;
  }

  /** Every connection ever made, oldest first (its path, what the client sent, its close code). */
  get connections() {
    return this.server.connections;
  }

  /** Sessions held by an open connection now. */
  get liveSessions(): number {
    return this.sessions.live.length;
  }

  /** The most sessions ever held by open connections at once: 1 when the bot never ran two gateway sessions. */
  get maxConcurrentSessions(): number {
    return this.sessions.maxConcurrent;
  }

  /** Every dispatch (of one event name, or all) sent to any session, oldest first. */
  dispatched(t?: string): (SentDispatch & { readonly sessionId: string })[] {
    return this.sessions.all().flatMap((session) => session.log.filter((dispatch) => t === undefined || dispatch.t === t).map((dispatch) => ({ ...dispatch, sessionId: session.id })));
  }

  /** Sends op 7 Reconnect on every open connection. */
  reconnect(): void {
    for (const connection of this.server.open) connection.reconnect();
  }

  /** Sends op 9 Invalid Session on every connection holding a session; `resumable` false ends the sessions. */
  invalidateSessions(resumable: boolean): void {
    for (const connection of this.server.open) if (connection.session) connection.invalidate(resumable);
  }

  /** Closes every open connection with a close code (default 4000 Unknown error, after which a client resumes). */
  disconnect(code = 4000): void {
    for (const connection of this.server.open) connection.close(code);
  }

  /** Drops every connection without a close frame, as a network failure does. */
  dropConnections(): void {
    for (const connection of this.server.open) connection.drop();
  }

  /** Asks every open connection for a heartbeat now (op 1 from the server). */
  requestHeartbeat(): void {
    for (const connection of this.server.open) connection.requestHeartbeat();
  }

  withholdHeartbeatAcks(on: boolean): void {
    this.acksWithheld = on;
  }

  tokenAccepted(token: unknown): boolean {
    return token === this.options.token && !this.options.tokenRevoked();
  }

  admitIdentify(): boolean {
    const now = this.world.now();
    if (now - this.lastIdentifyAt < this.options.identifyIntervalMs) return false;
    this.lastIdentifyAt = now;
    this.identifies++;
    return true;
  }

  /** READY, then GUILD_CREATE for each of the shard's guilds when the session has GUILDS. */
  handshake(session: GatewaySession): void {
    const guilds = this.world.directory.guilds().filter((guild) => shardOf(guild.id, session.shard[1]) === session.shard[0]);
    this.sessions.send(session, "READY", readyData(this.world, session.id, session.shardSent ? session.shard : undefined, this.options.resumeGatewayUrl(), guilds));
    if ((session.intents & INTENT.GUILDS) === 0) return;
    for (const guild of guilds) this.sessions.send(session, "GUILD_CREATE", guildCreateData(this.world, guild, session.intents));
  }

  close(): void {
    this.server.close();
  }
}
