import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { firstValueFrom, lastValueFrom, NEVER, tap, toArray } from "rxjs";
import { PoolWaitTimeoutError } from "../../../src/acp/errors.js";
import { SessionPool, type PooledSession } from "../../../src/acp/pool/pool.js";
import { createSessionPool } from "../../../src/acp/pool/createSessionPool.js";
import { resolveConfig } from "../../../src/config/index.js";
import { FileSessionStore } from "../../../src/state/sessionStore.js";
import { eventually, isRunning, scratch, scriptedAgentPath } from "../../helpers/agents.js";
import { prose, turn, useSessionPools } from "../../helpers/sessionPools.js";
import { captureLogs } from "../../helpers/logCapture.js";

const pools: SessionPool[] = [];
const scratches: ReturnType<typeof scratch>[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  for (const dir of scratches.splice(0)) dir.cleanup();
});

const makePool = useSessionPools();

describe("SessionPool (real agent processes)", () => {
  it("keeps one session per key and reuses it", async () => {
    const { pool, events } = makePool();
    const first = await turn(pool, "telegram:a");
    const second = await turn(pool, "telegram:a");
    expect(second.sessionId).toBe(first.sessionId);
    expect(first.events).toEqual(prose);
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(1);
    expect(pool.size).toBe(1);
  });

  it("never interleaves two prompts on one key, while other keys run side by side", async () => {
    const { pool } = makePool();
    const log: string[] = [];
    const run = (key: string, label: string) =>
      lastValueFrom(
        pool.withSession(key, (session: PooledSession) => {
          log.push(`start ${label}`);
          return session.prompt([{ type: "text", text: "slow 300" }]).pipe(
            toArray(),
            tap(() => log.push(`end ${label}`)),
          );
        }),
      );
    await Promise.all([run("k", "a1"), run("k", "a2"), run("other", "b1")]);
    expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
  });

  it("evicts the least recently active idle session at max_sessions and resumes it with session/load", async () => {
    const { pool, events, records } = makePool({ agentEnv: { LOAD_SESSION: "1" }, pool: { max_sessions: 10 } });
    const ids = new Map<string, string>();
    for (let i = 1; i <= 12; i++) ids.set(`k${i}`, (await turn(pool, `k${i}`)).sessionId);
    expect(pool.size).toBe(10);
    const suspended = records.filter((r) => r.msg === "session suspended").map((r) => r.sessionKey);
    expect(suspended).toEqual(["k1", "k2"]);
    const again = await turn(pool, "k1");
    expect(again.sessionId).toBe(ids.get("k1"));
    expect(again.events).toEqual(prose); // resumed: no reset notice, and the replayed history is not part of the turn
    expect(events()).toContain(`load ${ids.get("k1")}`);
    expect(records.filter((r) => r.msg === "session suspended").map((r) => r.sessionKey)).toEqual(["k1", "k2", "k3"]);
    expect(pool.size).toBe(10);
  });

  it("marks the next turn with session_reset when an evicted session cannot be resumed", async () => {
    const { pool } = makePool({ pool: { max_sessions: 1 } });
    const first = await turn(pool, "a");
    await turn(pool, "b");
    const again = await turn(pool, "a");
    expect(again.sessionId).not.toBe(first.sessionId);
    expect(again.events).toEqual([{ type: "session_reset" }, ...prose]);
    expect((await turn(pool, "a")).events).toEqual(prose);
  });

  it("marks session_reset after the agent crashed, and resumes instead when the agent can load", async () => {
    const plain = makePool();
    await expect(turn(plain.pool, "a", "crash")).rejects.toThrow("Agent process exited unexpectedly");
    expect((await turn(plain.pool, "a")).events).toEqual([{ type: "session_reset" }, ...prose]);

    const loading = makePool({ agentEnv: { LOAD_SESSION: "1" } });
    const crashed = await turn(loading.pool, "a").then(() => turn(loading.pool, "a", "crash")).catch((err: unknown) => err);
    expect(crashed).toBeInstanceOf(Error);
    const resumed = await turn(loading.pool, "a");
    expect(resumed.events).toEqual(prose);
    expect(loading.events().some((line) => line.startsWith("load "))).toBe(true);
  });

  it("falls back to session/new with a reset notice when session/load fails for good", async () => {
    const { pool, records } = makePool({ agentEnv: { LOAD_SESSION: "1", LOAD_FAILS: "-32603" }, pool: { max_sessions: 1 } });
    const first = await turn(pool, "a");
    await turn(pool, "b");
    const again = await turn(pool, "a");
    expect(again.sessionId).not.toBe(first.sessionId);
    expect(again.events[0]).toEqual({ type: "session_reset" });
    expect(records.find((r) => r.msg === "session load failed; starting a new session")).toMatchObject({ reason: "load_failed" });
  });

  it("cancels the running turn of a key (/cancel) without waiting for the key", async () => {
    const { pool, events } = makePool();
    expect(pool.cancel("a")).toBe(false);
    const running = turn(pool, "a", "slow 5000");
    await eventually(() => events().some((line) => line.startsWith("prompt ")));
    expect(pool.cancel("a")).toBe(true);
    const { events: turnEvents } = await running;
    expect(turnEvents).toEqual([{ type: "end", stopReason: "cancelled" }]);
  });

  it("resets a key's session (/reset): a fresh session next, without a reset notice", async () => {
    const { pool, store } = makePool();
    expect(await pool.reset("a")).toBe(false);
    const first = await turn(pool, "a");
    expect(await pool.reset("a")).toBe(true);
    expect(await firstValueFrom(store.get("a"))).toBeUndefined();
    const next = await turn(pool, "a");
    expect(next.sessionId).not.toBe(first.sessionId);
    expect(next.events).toEqual(prose);
  });

  it("suspends sessions idle past session_ttl_hours and drops dead ones on sweep", async () => {
    let now = 1_000_000;
    const { pool, records } = makePool({ agentEnv: { LOAD_SESSION: "1" }, pool: { session_ttl_hours: 1 }, clock: { now: () => now } });
    const first = await turn(pool, "idle");
    now += 3_600_001;
    await pool.sweep();
    expect(pool.size).toBe(0);
    expect(records.find((r) => r.msg === "session suspended")).toMatchObject({ sessionKey: "idle", reason: "idle" });
    expect((await turn(pool, "idle")).sessionId).toBe(first.sessionId);
  });

  it("drops a session whose agent died while idle, and shows the reset notice next", async () => {
    const { pool, events, records } = makePool();
    await turn(pool, "a");
    const pid = Number(events().find((line) => line.startsWith("start "))?.split(" ")[1]);
    process.kill(pid, "SIGKILL");
    await eventually(() => !isRunning(pid));
    // The pool learns of the death from the child's exit event, which a loaded machine delivers late (50 ms was not always enough).
    expect(await eventually(() => records.some((r) => r.msg === "agent exited" && r.agentPid === pid))).toBe(true);
    await pool.sweep();
    expect(records.find((r) => r.msg === "session dropped")).toMatchObject({ sessionKey: "a", reason: "agent_dead" });
    expect((await turn(pool, "a")).events[0]).toEqual({ type: "session_reset" });
  });

  it("waits for a session when every one is busy, and takes the slot once one turns idle", async () => {
    const { pool, events, records } = makePool({ pool: { max_sessions: 1 } });
    const held = pool.withSession("busy", () => NEVER).subscribe();
    await eventually(() => events().some((line) => line.startsWith("new ")));
    const waiting = turn(pool, "another");
    expect(await eventually(() => pool.waiting === 1)).toBe(true);
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(1);
    held.unsubscribe();
    expect((await waiting).events).toEqual(prose);
    expect(pool.waiting).toBe(0);
    expect(records.filter((r) => r.msg === "session suspended").map((r) => [r.sessionKey, r.reason])).toEqual([["busy", "capacity"]]);
  });

  it("fails a wait with PoolWaitTimeoutError at the hard timeout, and logs pool_wait_timeout", async () => {
    const { pool, events, records } = makePool({ pool: { max_sessions: 1, prompt_hard_timeout_secs: 1 } });
    const held = pool.withSession("busy", () => NEVER).subscribe();
    await eventually(() => events().some((line) => line.startsWith("new ")));
    const failed = await turn(pool, "another").catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(PoolWaitTimeoutError);
    expect((failed as Error).message).toBe("every agent session stayed busy for 1s; please try again");
    expect(records.find((r) => r.msg === "session wait timed out")).toMatchObject({ sessionKey: "another", reason: "pool_wait_timeout", maxSessions: 1 });
    expect(pool.waiting).toBe(0);
    held.unsubscribe();
  });

  it("/cancel calls a waiting turn off: it completes without running", async () => {
    const { pool, events, records } = makePool({ pool: { max_sessions: 1 } });
    const held = pool.withSession("busy", () => NEVER).subscribe();
    await eventually(() => events().some((line) => line.startsWith("new ")));
    let ran = false;
    const waiting = lastValueFrom(pool.withSession("another", () => ((ran = true), NEVER)), { defaultValue: "completed" });
    expect(await eventually(() => pool.waiting === 1)).toBe(true);
    expect(pool.cancel("another")).toBe(true);
    expect(await waiting).toBe("completed");
    expect(ran).toBe(false);
    expect(records.find((r) => r.msg === "session wait cancelled")).toMatchObject({ sessionKey: "another", reason: "cancelled" });
    held.unsubscribe();
  });

  it("applies [pool] default_config_options after session/new", async () => {
    const { pool, events } = makePool({ pool: { default_config_options: { model: "smart" } } });
    await turn(pool, "a");
    expect(events()).toContain("set_config_option model smart");
  });

  it("resumes sessions after a restart from the session file", async () => {
    const dir = scratch();
    scratches.push(dir);
    const store = new FileSessionStore(join(dir.dir, "state", "sessions.json"));
    const before = makePool({ agentEnv: { LOAD_SESSION: "1" }, store });
    const first = await turn(before.pool, "a");
    await before.pool.close();
    const after = makePool({ agentEnv: { LOAD_SESSION: "1" }, store });
    const resumed = await turn(after.pool, "a");
    expect(resumed.sessionId).toBe(first.sessionId);
    expect(resumed.events).toEqual(prose);
    expect(JSON.parse(readFileSync(join(dir.dir, "state", "sessions.json"), "utf8"))).toEqual({ version: 2, sessions: { a: first.sessionId } });
  });

  it("leaves no agent process behind on close", async () => {
    const { pool, events } = makePool();
    await Promise.all([turn(pool, "a"), turn(pool, "b"), turn(pool, "c")]);
    const pids = events()
      .filter((line) => line.startsWith("start "))
      .map((line) => Number(line.split(" ")[1]));
    expect(pids).toHaveLength(3);
    await pool.close();
    for (const pid of pids) expect(await eventually(() => !isRunning(pid))).toBe(true);
  });

  it("createSessionPool keeps session ids in <[pool] state_dir>/sessions.json", async () => {
    const dir = scratch();
    scratches.push(dir);
    const config = resolveConfig({ agent: { command: process.execPath, args: [scriptedAgentPath] }, pool: { state_dir: join(dir.dir, "state") } });
    const pool = createSessionPool(config, { env: process.env, logger: captureLogs().logger });
    pools.push(pool);
    const { sessionId } = await turn(pool, "telegram:a:");
    expect(JSON.parse(readFileSync(join(dir.dir, "state", "sessions.json"), "utf8"))).toEqual({ version: 2, sessions: { "telegram:a:": sessionId } });
  });

  it("createSessionPool resumes an earlier version's sessions.json entry for the conversation it names, and logs the old keys once", async () => {
    const dir = scratch();
    scratches.push(dir);
    const stateDir = join(dir.dir, "state");
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, "sessions.json"), JSON.stringify({ "telegram:T1": "sess-old", "telegram:c9": "sess-other" }));
    const config = resolveConfig({ agent: { command: process.execPath, args: [scriptedAgentPath], env: { LOAD_SESSION: "1", AGENT_EVENTS_FILE: dir.eventsFile } }, pool: { state_dir: stateDir } });
    const { logger, records } = captureLogs();
    const pool = createSessionPool(config, { env: process.env, logger });
    pools.push(pool);
    expect((await turn(pool, "telegram:chat-A:T1")).sessionId).toBe("sess-old");
    expect((await turn(pool, "telegram:chat-B:T1")).sessionId).not.toBe("sess-old");
    expect(dir.events().filter((line) => /^(new|load) /.test(line))).toEqual(["load sess-old", expect.stringMatching(/^new /)]);
    expect(records.filter((r) => r.msg === "old-format session keys wait to be claimed")).toEqual([
      expect.objectContaining({ reason: "legacy_session_keys", legacyKeys: 2, path: join(stateDir, "sessions.json") }),
    ]);
  });
});
