import { resolve as resolvePath } from "node:path";
import { concat, defer, finalize, from, Observable, of, type ObservableInput, type Subscription } from "rxjs";
import type { Logger } from "pino";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import type { AgentConfig, Config } from "../config/index.js";
import type { SessionStore } from "../state/sessionStore.js";
import { AcpClient, type AcpClientOptions, type ContentBlock, type PromptOptions } from "./client.js";
import { AcpTimeoutError, AgentExitedError, PoolExhaustedError } from "./errors.js";
import { KeyLock } from "./keyLock.js";

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
  readonly client?: Pick<AcpClientOptions, "timeouts" | "killAfterMs" | "clientVersion">;
}

/** A session held for the duration of `withSession`'s work. */
export interface PooledSession {
  readonly key: string;
  readonly sessionId: string;
  /**
   * One prompt turn's events (see `AcpClient.prompt`), led by `session_reset` when this turn runs
   * on a fresh session because the previous one was lost.
   */
  prompt(blocks: readonly ContentBlock[]): Observable<AgentEvent>;
}

interface Entry {
  readonly client: AcpClient;
  readonly sessionId: string;
  lastActive: number;
  resetPending: boolean;
  turnRunning: boolean;
}

/**
 * Session key → a live ACP session on its own agent process. One holder per key at a time, for
 * as long as its work runs (a whole turn, delivery included). At `[pool] max_sessions` the least
 * recently active idle session is evicted; its id stays in the store, so the key resumes with
 * `session/load` where the agent supports it.
 */
export class SessionPool {
  readonly #options: SessionPoolOptions;
  readonly #logger: Logger;
  readonly #clock: { now(): number };
  readonly #entries = new Map<string, Entry>();
  readonly #lock = new KeyLock();
  /** Keys whose live session went away without a reset: their next session shows the reset notice. */
  readonly #lost = new Set<string>();
  readonly #promptOptions: PromptOptions;
  readonly #housekeeping: NodeJS.Timeout;
  #creating = 0;
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
    this.#housekeeping = setInterval(() => void this.sweep(), options.housekeepingMs ?? 60_000);
    this.#housekeeping.unref();
  }

  /** Live sessions. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Runs `work` with the key's session, creating or resuming it first, and holds the key until the
   * work completes, errors or is unsubscribed; other callers for the same key wait their turn.
   */
  withSession<T>(key: string, work: (session: PooledSession) => ObservableInput<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      let release: (() => void) | undefined;
      let inner: Subscription | undefined;
      let unsubscribed = false;
      const finish = (entry: Entry) => {
        entry.lastActive = this.#clock.now();
        release?.();
      };
      this.#lock
        .acquire(key)
        .then(async (releaseKey) => {
          release = releaseKey;
          if (unsubscribed) return releaseKey();
          const entry = await this.#ensure(key);
          if (unsubscribed) return finish(entry);
          entry.lastActive = this.#clock.now();
          inner = from(work(this.#session(key, entry))).subscribe({
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
          subscriber.error(err);
        });
      return () => {
        unsubscribed = true;
        inner?.unsubscribe();
        release?.();
      };
    });
  }

  /**
   * `/cancel`: sends `session/cancel` to the key's running turn without waiting for the key (the
   * turn holds it). Returns false when no turn is running.
   */
  cancel(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined || !entry.turnRunning) return false;
    entry.client.cancel(entry.sessionId);
    return true;
  }

  /**
   * `/reset`: waits for the key, ends its session and forgets its id, so the next message starts
   * a fresh conversation without a reset notice. Returns whether there was a session to reset.
   */
  async reset(key: string): Promise<boolean> {
    const release = await this.#lock.acquire(key);
    try {
      const entry = this.#entries.get(key);
      const saved = await this.#options.store.get(key);
      this.#entries.delete(key);
      this.#lost.delete(key);
      await this.#options.store.delete(key);
      if (entry !== undefined) await entry.client.close();
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
      } else if (now - entry.lastActive > ttlMs) {
        this.#entries.delete(key);
        this.#logger.info({ sessionKey: key, reason: "idle", idleMs: now - entry.lastActive }, "session suspended");
        closing.push(entry.client.close());
      }
    }
    await Promise.all(closing);
  }

  /** Ends every session (their ids stay in the store for `session/load` after a restart). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#housekeeping);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.client.close()));
  }

  #session(key: string, entry: Entry): PooledSession {
    return {
      key,
      sessionId: entry.sessionId,
      prompt: (blocks) =>
        defer(() => {
          const reset = entry.resetPending;
          entry.resetPending = false;
          entry.turnRunning = true;
          const turn = entry.client.prompt(entry.sessionId, blocks, this.#promptOptions);
          return (reset ? concat(of<AgentEvent>({ type: "session_reset" }), turn) : turn).pipe(
            finalize(() => {
              entry.turnRunning = false;
              entry.lastActive = this.#clock.now();
            }),
          );
        }),
    };
  }

  /** The key's live session: the existing one, or a resumed or new one on a fresh agent process. */
  async #ensure(key: string): Promise<Entry> {
    if (this.#closed) throw new Error("session pool is closed");
    const existing = this.#entries.get(key);
    if (existing !== undefined) {
      if (existing.client.alive) return existing;
      this.#entries.delete(key);
      this.#lost.add(key);
    }
    await this.#makeRoom(key);
    this.#creating++;
    try {
      const { agent, env, logger, store } = this.#options;
      const client = await AcpClient.start({ agent, env, logger, ...this.#options.client });
      try {
        const cwd = resolvePath(agent.working_dir);
        const saved = await store.get(key);
        let sessionId = saved !== undefined && client.supportsLoadSession ? await this.#resume(client, key, saved, cwd) : undefined;
        const resumed = sessionId !== undefined;
        if (sessionId === undefined) {
          sessionId = (await client.newSession(cwd)).sessionId;
          await this.#applyDefaultOptions(client, sessionId);
          await store.set(key, sessionId);
          this.#logger.info({ sessionKey: key, sessionId }, "session created");
        }
        const entry: Entry = {
          client,
          sessionId,
          lastActive: this.#clock.now(),
          resetPending: !resumed && (saved !== undefined || this.#lost.has(key)),
          turnRunning: false,
        };
        this.#lost.delete(key);
        this.#entries.set(key, entry);
        return entry;
      } catch (err) {
        await client.close();
        throw err;
      }
    } finally {
      this.#creating--;
    }
  }

  /** `session/load`; undefined when the agent no longer knows the session. A transient failure propagates, keeping the id. */
  async #resume(client: AcpClient, key: string, sessionId: string, cwd: string): Promise<string | undefined> {
    try {
      await client.loadSession(sessionId, cwd);
      this.#logger.info({ sessionKey: key, sessionId }, "session resumed");
      return sessionId;
    } catch (err) {
      if (err instanceof AcpTimeoutError || err instanceof AgentExitedError) throw err;
      this.#logger.warn({ sessionKey: key, sessionId, reason: "load_failed", err }, "session load failed; starting a new session");
      return undefined;
    }
  }

  async #applyDefaultOptions(client: AcpClient, sessionId: string): Promise<void> {
    for (const [configId, value] of Object.entries(this.#options.pool.default_config_options)) {
      try {
        await client.setConfigOption(sessionId, configId, value);
      } catch (err) {
        this.#logger.warn({ reason: "config_option_failed", configId, err }, "default config option not applied");
      }
    }
  }

  /** At capacity, suspends the least recently active idle session; none idle → `PoolExhaustedError`. */
  async #makeRoom(forKey: string): Promise<void> {
    const max = this.#options.pool.max_sessions;
    if (this.#entries.size + this.#creating < max) return;
    let oldest: [string, Entry] | undefined;
    for (const candidate of this.#entries) {
      const [key, entry] = candidate;
      if (key === forKey || this.#lock.isBusy(key)) continue;
      if (oldest === undefined || entry.lastActive < oldest[1].lastActive) oldest = candidate;
    }
    if (oldest === undefined) throw new PoolExhaustedError(max);
    const [key, entry] = oldest;
    this.#entries.delete(key);
    this.#logger.info({ sessionKey: key, reason: "capacity", maxSessions: max }, "session suspended");
    await entry.client.close();
  }
}
