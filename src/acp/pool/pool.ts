import { firstValueFrom, from, lastValueFrom, Observable, type ObservableInput, type Subscription } from "rxjs";
import type { Logger } from "../../log/logger.js";
import type { AgentConfig, Config } from "../../config/index.js";
import type { SessionStore } from "../../state/sessionStore.js";
import type { AcpClientOptions } from "../client.js";
import { PoolClosedError, PoolWaitTimeoutError, SessionWaitCancelledError } from "../errors.js";
import { KeyLock } from "./keyLock.js";
import type { McpOffers } from "../mcpServers.js";
import type { PromptOptions } from "../promptTurn.js";
import { closeEntry, pooledSession, type PooledSession, type PoolEntry } from "./pooledSession.js";
import { preloadSessions } from "./preloadSessions.js";
import { SessionSlots } from "./sessionSlots.js";
import { spawnSession, startAgent } from "./spawnSession.js";
import { AgentHosts } from "./agentHosts.js";

export type { PooledSession };

export interface SessionPoolOptions {
  readonly agent: AgentConfig;
  readonly pool: Config["pool"];
  /** The broker's environment (the agent's HOME/PATH/USER, `inherit_env`). */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly store: SessionStore;
  /** Milliseconds for activity bookkeeping; the wall clock by default. */
  readonly clock?: { now(): number };
  /** How often idle and dead sessions are swept (default 60 s, as OpenAB). */
  readonly housekeepingMs?: number;
  readonly client?: Pick<AcpClientOptions, "timeouts" | "killAfterMs" | "clientVersion" | "onAgentExit" | "redact">;
  /** The MCP servers offered to each session in `session/new` and `session/load` (the reply tool); none when absent. */
  readonly mcp?: McpOffers;
}

/**
 * Session key → a live ACP session on an agent process (its own, or shared by up to `[pool]
 * sessions_per_agent` sessions: `AgentHosts`). One holder per key at a time, for
 * as long as its work runs (a whole turn, delivery included). At `[pool] max_sessions` the least
 * recently active idle session is evicted; its id stays in the store, so the key resumes with
 * `session/load` where the agent supports it. When every session is busy, a key that needs one
 * waits (oldest first across keys, see `SessionSlots`) for up to the hard timeout.
 */
export class SessionPool {
  readonly #options: SessionPoolOptions;
  readonly #logger: Logger;
  readonly #clock: { now(): number };
  readonly #entries = new Map<string, PoolEntry>();
  readonly #lock = new KeyLock();
  /** Keys whose live session went away without a reset: their next session shows the reset notice. */
  readonly #lost = new Set<string>();
  readonly #promptOptions: PromptOptions;
  readonly #housekeeping: NodeJS.Timeout;
  readonly #slots: SessionSlots;
  readonly #hosts: AgentHosts;
  #closed = false;

  constructor(options: SessionPoolOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date;
    const { pool } = options;
    this.#promptOptions = {
      hardTimeoutMs: pool.prompt_hard_timeout_secs * 1000,
      hungGraceMs: pool.hung_grace_secs * 1000,
      livenessMs: pool.liveness_check_secs * 1000,
    };
    this.#slots = new SessionSlots({
      maxSessions: pool.max_sessions,
      waitTimeoutMs: this.#promptOptions.hardTimeoutMs,
      idle: () => this.#idleSessions(),
      evict: (key) => this.#suspendForCapacity(key),
    });
    this.#hosts = new AgentHosts(pool.sessions_per_agent, () => startAgent(options));
    this.#housekeeping = setInterval(() => void this.sweep(), options.housekeepingMs ?? 60_000);
    this.#housekeeping.unref();
  }

  /** Live sessions. */
  get size(): number {
    return this.#entries.size;
  }

  /** Sessions the pool holds: live, being started, being closed. Never above `max_sessions`. */
  get slotsUsed(): number {
    return this.#slots.used;
  }

  /** Agent processes the pool holds (starting, running, closing): `slotsUsed` at `sessions_per_agent` 1, fewer above. */
  get agentProcesses(): number {
    return this.#hosts.size;
  }

  /** Turns waiting for a session because every one is busy. */
  get waiting(): number {
    return this.#slots.waiting;
  }

  /**
   * Runs `work` with the key's session, creating or resuming it first, and holds the key until the
   * work completes, errors or is unsubscribed; other callers for the same key wait their turn. A
   * key without a live session waits for a free one when every session is busy: it fails with
   * `PoolWaitTimeoutError` after `prompt_hard_timeout_secs`, and completes without running `work`
   * when `cancel(key)` calls the wait off.
   */
  withSession<T>(key: string, work: (session: PooledSession) => ObservableInput<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      let release: (() => void) | undefined;
      let inner: Subscription | undefined;
      const unsubscribed = new AbortController();
      const finish = (entry: PoolEntry) => {
        entry.lastActive = this.#clock.now();
        release?.();
      };
      this.#lock
        .acquire(key)
        .then(async (releaseKey) => {
          // Once the key is free again its session is idle: a waiting key may take its slot.
          release = () => {
            releaseKey();
            this.#slots.sessionIdle();
          };
          if (unsubscribed.signal.aborted) return release();
          const entry = await this.#ensure(key, unsubscribed.signal);
          if (unsubscribed.signal.aborted) return finish(entry);
          entry.lastActive = this.#clock.now();
          inner = from(work(pooledSession(key, entry, this.#promptOptions, this.#clock))).subscribe({
            next: (value) => subscriber.next(value),
            error: (err: unknown) => {
              finish(entry);
              subscriber.error(err);
            },
            complete: () => {
              finish(entry);
              subscriber.complete();
            },
          });
        })
        .catch((err: unknown) => {
          release?.();
          if (err instanceof SessionWaitCancelledError) subscriber.complete();
          else subscriber.error(err);
        });
      return () => {
        unsubscribed.abort(new SessionWaitCancelledError());
        inner?.unsubscribe();
        release?.();
      };
    });
  }

  /**
   * `/cancel`: sends `session/cancel` to the key's running turn without waiting for the key (the
   * turn holds it), or calls off the key's wait for a session. Returns false when neither runs.
   */
  cancel(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined || !entry.turnRunning) return this.#slots.cancel(key);
    entry.client.cancel(entry.sessionId);
    return true;
  }

  /** `[pool] preload_persisted_sessions`: resumes every saved session before the broker takes events (`preloadSessions`). */
  preload(): Promise<number> {
    return preloadSessions(this.#options.store, { maxSessions: this.#options.pool.max_sessions, logger: this.#logger, restore: (key) => this.restore(key) });
  }

  /**
   * Resumes the key's saved session (`session/load`) on a fresh agent, sending no prompt, for
   * `[pool] preload_persisted_sessions`. Unlike a turn's lazy resume it never falls back to a new
   * session: an agent that cannot load sessions, or a load that fails, is a `PreloadError`.
   */
  async restore(key: string): Promise<void> {
    const release = await this.#lock.acquire(key);
    try {
      if (!this.#entries.has(key)) await this.#ensure(key, new AbortController().signal, true);
    } finally {
      release();
      this.#slots.sessionIdle();
    }
  }

  /**
   * `/reset`: waits for the key, ends its session and forgets its id, so the next message starts
   * a fresh conversation without a reset notice. Returns whether there was a session to reset.
   */
  async reset(key: string): Promise<boolean> {
    const release = await this.#lock.acquire(key);
    try {
      const entry = this.#entries.get(key);
      const saved = await firstValueFrom(this.#options.store.get(key));
      this.#entries.delete(key);
      this.#lost.delete(key);
      await lastValueFrom(this.#options.store.delete(key), { defaultValue: undefined });
      if (entry !== undefined) await this.#retire(entry);
      this.#logger.info({ sessionKey: key, hadSession: entry !== undefined || saved !== undefined }, "session reset");
      return entry !== undefined || saved !== undefined;
    } finally {
      release();
    }
  }

  /** Housekeeping: drops sessions whose agent died and suspends those idle past `session_ttl_hours`. */
  async sweep(): Promise<void> {
    const ttlMs = this.#options.pool.session_ttl_hours * 3_600_000;
    const now = this.#clock.now();
    const closing: Promise<void>[] = [];
    for (const [key, entry] of this.#entries) {
      if (this.#lock.isBusy(key)) continue;
      if (!entry.client.alive) {
        this.#entries.delete(key);
        this.#lost.add(key);
        this.#logger.warn({ sessionKey: key, reason: "agent_dead" }, "session dropped");
        closing.push(this.#retire(entry));
      } else if (now - entry.lastActive > ttlMs) {
        this.#entries.delete(key);
        this.#logger.info({ sessionKey: key, reason: "idle", idleMs: now - entry.lastActive }, "session suspended");
        closing.push(this.#retire(entry));
      }
    }
    await Promise.all(closing);
  }

  /** Ends every session (their ids stay in the store for `session/load` after a restart). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#housekeeping);
    this.#slots.close();
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => closeEntry(entry, this.#hosts)));
  }

  /**
   * The key's live session: the existing one, or a resumed or new one on a fresh agent process
   * (only a resumed one when `mustResume`: see `restore`).
   */
  async #ensure(key: string, signal: AbortSignal, mustResume = false): Promise<PoolEntry> {
    if (this.#closed) throw new PoolClosedError();
    const existing = this.#entries.get(key);
    if (existing !== undefined) {
      if (existing.client.alive) return existing;
      this.#entries.delete(key);
      this.#lost.add(key);
      void this.#retire(existing);
    }
    await this.#slot(key, signal);
    return spawnSession(key, this.#options, this.#hosts, {
      mustResume,
      adopt: ({ client, host, sessionId, offer, resumed, hadSaved }) => {
        if (this.#closed) throw new PoolClosedError();
        const entry: PoolEntry = {
          client,
          host,
          sessionId,
          offer,
          prompted: resumed,
          lastActive: this.#clock.now(),
          resetPending: !resumed && (hadSaved || this.#lost.has(key)),
          turnRunning: false,
        };
        this.#lost.delete(key);
        this.#entries.set(key, entry);
        return entry;
      },
      // The slot is free once the agent that failed is gone.
      closing: (closed) => this.#slots.freeWhen(closed),
    });
  }

  /** Waits for one of the `max_sessions` slots, logging a wait that timed out or was called off. */
  async #slot(key: string, signal: AbortSignal): Promise<void> {
    try {
      const granted = this.#slots.acquire(key, signal);
      if (this.#slots.isWaiting(key)) {
        this.#logger.debug({ sessionKey: key, waiting: this.#slots.waiting, maxSessions: this.#options.pool.max_sessions }, "waiting for a session");
      }
      await granted;
    } catch (err) {
      if (err instanceof PoolWaitTimeoutError) {
        this.#logger.warn({ sessionKey: key, reason: "pool_wait_timeout", waitedMs: err.waitedMs, maxSessions: err.maxSessions }, "session wait timed out");
      } else if (err instanceof SessionWaitCancelledError && !signal.aborted) {
        this.#logger.info({ sessionKey: key, reason: "cancelled" }, "session wait cancelled");
      }
      throw err;
    }
  }

  /** Sessions nobody holds or waits for: the ones a waiting key may suspend. */
  #idleSessions(): { key: string; lastActive: number }[] {
    const idle: { key: string; lastActive: number }[] = [];
    for (const [key, entry] of this.#entries) {
      if (!entry.turnRunning && !this.#lock.isBusy(key)) idle.push({ key, lastActive: entry.lastActive });
    }
    return idle;
  }

  /** Suspends an idle session so a waiting key gets its slot; resolves once its agent is gone. */
  #suspendForCapacity(key: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return Promise.resolve();
    this.#entries.delete(key);
    this.#logger.info({ sessionKey: key, reason: "capacity", maxSessions: this.#options.pool.max_sessions }, "session suspended");
    return closeEntry(entry, this.#hosts);
  }

  /** Closes a session already removed from the pool; its slot is free once the agent is gone. */
  #retire(entry: PoolEntry): Promise<void> {
    const closed = closeEntry(entry, this.#hosts);
    this.#slots.freeWhen(closed);
    return closed;
  }
}
