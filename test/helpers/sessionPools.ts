import { afterEach } from "vitest";
import { lastValueFrom, map, toArray } from "rxjs";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import { SessionPool } from "../../src/acp/pool/pool.js";
import { defaultConfig, type Config } from "../../src/config/index.js";
import { MemorySessionStore, type SessionStore } from "../../src/state/sessionStore.js";
import { agentConfig, scratch } from "./agents.js";
import { captureLogs } from "./logCapture.js";

export interface PoolSetup {
  agentEnv?: Record<string, string>;
  pool?: Partial<Config["pool"]>;
  store?: SessionStore;
  clock?: { now(): number };
}

/** A pool over the scripted agent, with its agents' events file and the pool's log records. */
export interface TestPool {
  readonly pool: SessionPool;
  /** The scripted agents' events (`start <pid> <cwd>`, `new <id>`, `prompt <id> <scenario>`…), oldest first. */
  events(): string[];
  readonly records: Record<string, unknown>[];
  readonly store: SessionStore;
}

/** `makePool` for the enclosing describe block: each pool (and its scratch directory) is closed after its test. */
export function useSessionPools(): (setup?: PoolSetup) => TestPool {
  const pools: SessionPool[] = [];
  const scratches: ReturnType<typeof scratch>[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
    for (const dir of scratches.splice(0)) dir.cleanup();
  });
  return ({ agentEnv = {}, pool = {}, store = new MemorySessionStore(), clock }: PoolSetup = {}) => {
    const dir = scratch();
    scratches.push(dir);
    const { logger, records } = captureLogs();
    const sessionPool = new SessionPool({
      agent: agentConfig({ AGENT_EVENTS_FILE: dir.eventsFile, ...agentEnv }),
      pool: { ...defaultConfig({}).pool, prompt_hard_timeout_secs: 30, ...pool },
      env: process.env,
      logger,
      store,
      ...(clock === undefined ? {} : { clock }),
    });
    pools.push(sessionPool);
    return { pool: sessionPool, events: dir.events, records, store };
  };
}

/** One turn on `key` (the prompt text names the scripted agent's scenario): the session it ran on and the events it produced. */
export function turn(pool: SessionPool, key: string, text = "prose"): Promise<{ sessionId: string; events: AgentEvent[] }> {
  return lastValueFrom(
    pool.withSession(key, (session) =>
      session.prompt([{ type: "text", text }]).pipe(
        toArray(),
        map((events) => ({ sessionId: session.sessionId, events })),
      ),
    ),
  );
}

/** The scripted agent names its sessions `sess-<pid>-<n>`: the process a session lives in. */
export function pidOf(sessionId: string): number {
  return Number(sessionId.split("-")[1]);
}

/** What the scripted agent's `prose` scenario answers. */
export const prose: AgentEvent[] = [
  { type: "text", text: "hey what's up" },
  { type: "end", stopReason: "end_turn" },
];
