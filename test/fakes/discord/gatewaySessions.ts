import { randomBytes } from "node:crypto";

/** One dispatch as a session received it: its sequence number, event name and data. */
export interface SentDispatch {
  readonly s: number;
  readonly t: string;
  readonly d: unknown;
}

/** Where a session's dispatches go while a connection holds it. */
export interface SessionLink {
  sendDispatch(dispatch: SentDispatch): void;
}

/** A gateway session: made by IDENTIFY, held by one connection at a time, resumable after a drop. */
export interface GatewaySession {
  readonly id: string;
  readonly intents: number;
  readonly shard: readonly [number, number];
  /** The shard as IDENTIFY sent it (READY echoes it only then). */
  readonly shardSent: boolean;
  /** The last sequence number used. */
  seq: number;
  /** Every dispatch sent to it, oldest first: what RESUME replays. */
  readonly log: SentDispatch[];
  link: SessionLink | undefined;
  /** When its last connection went away (it stays resumable for the resume window). */
  disconnectedAt: number | undefined;
  /** Closed with 1000/1001, invalidated (op 9 false) or timed out: it can no longer be resumed. */
  invalid: boolean;
}

/** An event for the bot's sessions; what each session sees of it may depend on its intents. */
export interface GatewayEvent {
  readonly t: string;
  /** The guild it happens in, for shard routing; DMs (undefined) go to shard 0, as Discord sends them. */
  readonly guildId: string | undefined;
  /** Intent bits of which a session needs one to get it; 0 when it needs none. */
  readonly intent: number;
  readonly data: (session: GatewaySession) => unknown;
}

/**
 * The bot's gateway sessions: which are held by a connection, which wait to be resumed, every dispatch each
 * was sent (with its own sequence numbers), and the most ever held at once.
 */
export class GatewaySessions {
  private readonly byId = new Map<string, GatewaySession>();
  private held = 0;
  /** The most sessions ever held by open connections at once: 1 when the bot never ran two. */
  maxConcurrent = 0;

  constructor(
    private readonly resumeWindowMs: number,
    private readonly now: () => number,
  ) {}

  create(intents: number, shard: readonly [number, number], shardSent: boolean): GatewaySession {
    const session: GatewaySession = { id: randomBytes(16).toString("hex"), intents, shard, shardSent, seq: 0, log: [], link: undefined, disconnectedAt: undefined, invalid: false };
    this.byId.set(session.id, session);
    return session;
  }

  /** A session RESUME may take: known, not invalidated, and held or dropped less than the resume window ago. */
  resumable(id: unknown): GatewaySession | undefined {
    const session = typeof id === "string" ? this.byId.get(id) : undefined;
    if (!session || session.invalid) return undefined;
    if (!session.link && session.disconnectedAt !== undefined && this.now() - session.disconnectedAt > this.resumeWindowMs) {
      session.invalid = true;
      return undefined;
    }
    return session;
  }

  attach(session: GatewaySession, link: SessionLink): void {
    if (session.link === link) return;
    if (!session.link) this.held++;
    session.link = link;
    session.disconnectedAt = undefined;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.held);
  }

  /** The connection let go of the session; `invalidate` when it can't be resumed (close 1000/1001, op 9 false). */
  detach(session: GatewaySession, link: SessionLink, invalidate: boolean): void {
    if (session.link !== link) return;
    session.link = undefined;
    session.disconnectedAt = this.now();
    this.held--;
    if (invalidate) session.invalid = true;
  }

  /** Sessions held by an open connection now. */
  get live(): GatewaySession[] {
    return [...this.byId.values()].filter((session) => session.link !== undefined);
  }

  all(): GatewaySession[] {
    return [...this.byId.values()];
  }

  /** Sends one dispatch to one session: the next sequence number, kept for RESUME. */
  send(session: GatewaySession, t: string, d: unknown): SentDispatch {
    const dispatch: SentDispatch = { s: ++session.seq, t, d };
    session.log.push(dispatch);
    session.link?.sendDispatch(dispatch);
    return dispatch;
  }

  /** Sends an event to every session that should get it: right shard, an intent it needs, still resumable. */
  dispatch(event: GatewayEvent): void {
    for (const session of this.byId.values()) {
      if (!this.resumable(session.id)) continue;
      if (event.intent !== 0 && (session.intents & event.intent) === 0) continue;
      if (shardOf(event.guildId, session.shard[1]) !== session.shard[0]) continue;
      this.send(session, event.t, event.data(session));
    }
  }
}

/** Which shard gets a guild's events: (guild_id >> 22) % num_shards; no guild, shard 0 (docs: Sharding). */
export function shardOf(guildId: string | undefined, shardCount: number): number {
  if (guildId === undefined) return 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}
