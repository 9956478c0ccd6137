import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lastValueFrom, map, toArray } from "rxjs";
import { PreloadError } from "../../../src/acp/errors.js";
import { createSessionPool } from "../../../src/acp/pool/createSessionPool.js";
import { SessionPool } from "../../../src/acp/pool/pool.js";
import { defaultConfig, type Config } from "../../../src/config/index.js";
import { MemorySessionStore } from "../../../src/state/sessionStore.js";
import { agentConfig, scratch } from "../../helpers/agents.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { useSessionPools } from "../../helpers/sessionPools.js";

// `[pool] preload_persisted_sessions` on real scripted agents: every saved session is resumed
// with session/load before any turn, and anything that keeps one from being restored is a
// PreloadError that names why (start-up then fails, as upstream's does).

const pools: SessionPool[] = [];
const scratches: ReturnType<typeof scratch>[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  for (const dir of scratches.splice(0)) dir.cleanup();
});

const makePool = useSessionPools();

/** A pool over the scripted agent whose store already holds `saved` (key → session id). */
async function poolWith(saved: Record<string, string>, agentEnv: Record<string, string> = { LOAD_SESSION: "1" }, pool: Partial<Config["pool"]> = {}) {
  const store = new MemorySessionStore();
  for (const [key, id] of Object.entries(saved)) await lastValueFrom(store.set(key, id), { defaultValue: undefined });
  return makePool({ agentEnv, pool, store });
}

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (err: unknown) => err);

describe("SessionPool.preload (real agent processes)", () => {
  it("resumes every saved session with session/load, in key order, sending no prompt", async () => {
    const { pool, events, records } = await poolWith({ "telegram:b:": "sess-b", "telegram:a:": "sess-a" });
    expect(await pool.preload()).toBe(2);
    expect(pool.size).toBe(2);
    expect(events().filter((line) => line.startsWith("load "))).toEqual(["load sess-a", "load sess-b"]);
    expect(events().some((line) => line.startsWith("prompt ") || line.startsWith("new "))).toBe(false);
    expect(records.filter((r) => r.msg === "session resumed").map((r) => r.sessionKey)).toEqual(["telegram:a:", "telegram:b:"]);
    expect(records.find((r) => r.msg === "saved sessions preloaded")).toMatchObject({ preloaded: 2 });
    // The next turn on a preloaded key runs on that session: no second agent, no new session.
    const sessionId = await lastValueFrom(pool.withSession("telegram:a:", (session) => session.prompt([{ type: "text", text: "prose" }]).pipe(toArray(), map(() => session.sessionId))));
    expect(sessionId).toBe("sess-a");
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(2);
  });

  it("with nothing saved, starts nothing", async () => {
    const { pool, events } = await poolWith({});
    expect(await pool.preload()).toBe(0);
    expect(events()).toEqual([]);
  });

  it("refuses more saved sessions than max_sessions before starting any agent", async () => {
    const { pool, events } = await poolWith({ a: "sess-a", b: "sess-b", c: "sess-c" }, { LOAD_SESSION: "1" }, { max_sessions: 2 });
    const err = await failure(pool.preload());
    expect(err).toBeInstanceOf(PreloadError);
    expect(err).toMatchObject({ reason: "too_many_sessions", message: "pool.preload_persisted_sessions: cannot restore the saved sessions: 3 are saved and [pool] max_sessions = 2" });
    expect(events()).toEqual([]);
  });

  it("fails, and leaves no agent behind, when the agent cannot load sessions", async () => {
    const { pool } = await poolWith({ a: "sess-a" }, {});
    const err = await failure(pool.preload());
    expect(err).toMatchObject({ reason: "load_unsupported", message: expect.stringMatching(/does not support session\/load$/) });
    expect(pool.size).toBe(0);
    expect(pool.slotsUsed).toBe(0);
  });

  it("fails with the agent's error when a load fails, never starting a new session instead", async () => {
    const { pool, events } = await poolWith({ a: "sess-a" }, { LOAD_SESSION: "1", LOAD_FAILS: "-32603" });
    const err = await failure(pool.preload());
    expect(err).toMatchObject({ reason: "load_failed", message: expect.stringContaining("session/load of a failed: ") });
    expect((err as Error).cause).toBeInstanceOf(Error);
    expect(events().some((line) => line.startsWith("new "))).toBe(false);
    expect(pool.slotsUsed).toBe(0);
  });

  it("fails naming the file when the saved ids cannot be read", async () => {
    const dir = scratch();
    scratches.push(dir);
    const stateDir = join(dir.dir, "state");
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, "sessions.json"), "not json");
    const config = { ...defaultConfig({}), pool: { ...defaultConfig({}).pool, state_dir: stateDir, preload_persisted_sessions: true } };
    const { logger } = captureLogs();
    const pool = createSessionPool({ ...config, agent: agentConfig({ LOAD_SESSION: "1" }) }, { env: process.env, logger });
    pools.push(pool);
    const err = await failure(pool.preload());
    expect(err).toMatchObject({ reason: "store_unreadable" });
    expect((err as Error).message).toContain(join(stateDir, "sessions.json"));
  });
});
