import { describe, expect, it } from "vitest";
import { HardTimeoutError } from "../../../src/acp/errors.js";
import { eventually, isRunning } from "../../helpers/agents.js";
import { pidOf, prose, turn, useSessionPools } from "../../helpers/sessionPools.js";

// `[pool] sessions_per_agent` > 1: several conversations' sessions on one scripted agent process
// (it names its sessions `sess-<pid>-<n>`, so a session's process is in its id).

const makePool = useSessionPools();

describe("SessionPool with several sessions per agent process (real agent processes)", () => {
  it("places sessions on a process with room and starts another when every one is full", async () => {
    const { pool, events } = makePool({ pool: { sessions_per_agent: 3, max_sessions: 10 } });
    const ids: string[] = [];
    for (const key of ["a", "b", "c", "d"]) ids.push((await turn(pool, key)).sessionId);
    expect(new Set(ids.slice(0, 3).map(pidOf)).size).toBe(1);
    expect(pidOf(ids[3]!)).not.toBe(pidOf(ids[0]!));
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(2);
    expect(pool.agentProcesses).toBe(2);
    expect(pool.size).toBe(4);
    // Each key keeps its own session, turn after turn.
    for (const [i, key] of ["a", "b", "c", "d"].entries()) expect((await turn(pool, key)).sessionId).toBe(ids[i]);
  });

  it("ten conversations starting at once share the one process being started", async () => {
    const { pool, events } = makePool({ pool: { sessions_per_agent: 10, max_sessions: 10 } });
    const turns = await Promise.all(Array.from({ length: 10 }, (_, i) => turn(pool, `k${i}`)));
    for (const { events: got } of turns) expect(got).toEqual(prose);
    expect(new Set(turns.map(({ sessionId }) => sessionId)).size).toBe(10);
    expect(new Set(turns.map(({ sessionId }) => pidOf(sessionId))).size).toBe(1);
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(1);
  });

  it("a crash of a shared process fails only the turns running in it; every conversation answers its next message", async () => {
    const { pool, events, records } = makePool({ agentEnv: { LOAD_SESSION: "1" }, pool: { sessions_per_agent: 3, max_sessions: 10 } });
    const ids = new Map<string, string>();
    for (const key of ["a", "b", "c", "d"]) ids.set(key, (await turn(pool, key)).sessionId);
    const shared = pidOf(ids.get("a")!);
    const other = pidOf(ids.get("d")!);
    expect(other).not.toBe(shared);

    // a and b mid-turn, d mid-turn in the other process; c's turn crashes the shared process.
    const running = ["a", "b", "d"].map((key) => turn(pool, key, "slow 3000").then(({ events: got }) => got, (err: unknown) => err));
    await eventually(() => events().filter((line) => line.startsWith("prompt ") && line.endsWith(" slow")).length === 3);
    const crashed = await turn(pool, "c", "crash").catch((err: unknown) => err);
    expect(crashed).toBeInstanceOf(Error);
    const [a, b, d] = await Promise.all(running);
    expect(a).toBeInstanceOf(Error);
    expect(b).toBeInstanceOf(Error);
    expect(d).toEqual([{ type: "text", text: "slow done" }, { type: "end", stopReason: "end_turn" }]);
    expect(await eventually(() => !isRunning(shared))).toBe(true);
    expect(isRunning(other)).toBe(true);
    expect(records.some((r) => r.msg === "agent exited" && r.agentPid === shared)).toBe(true);

    // Each resumes its own session (session/load) in a process with room: the survivor first.
    for (const key of ["a", "b", "c"]) {
      const next = await turn(pool, key);
      expect(next.events).toEqual(prose);
      expect(next.sessionId).toBe(ids.get(key));
    }
    expect(events().filter((line) => line.startsWith("load ")).map((line) => line.slice("load ".length)).sort()).toEqual([ids.get("a"), ids.get("b"), ids.get("c")].sort());
    expect((await turn(pool, "d")).sessionId).toBe(ids.get("d"));
  });

  it("/reset of one conversation leaves the others' sessions; a process whose last session left is stopped", async () => {
    const { pool, events } = makePool({ pool: { sessions_per_agent: 2, max_sessions: 10 } });
    const a = (await turn(pool, "a")).sessionId;
    const b = (await turn(pool, "b")).sessionId;
    const c = (await turn(pool, "c")).sessionId;
    expect(pidOf(a)).toBe(pidOf(b));
    expect(pidOf(c)).not.toBe(pidOf(a));

    expect(await pool.reset("b")).toBe(true);
    expect(isRunning(pidOf(a))).toBe(true);
    const next = await turn(pool, "a");
    expect(next.sessionId).toBe(a);
    expect(next.events).toEqual(prose);
    // b starts afresh, in the room its old session left.
    const fresh = await turn(pool, "b");
    expect(fresh.sessionId).not.toBe(b);
    expect(fresh.events).toEqual(prose);
    expect(pidOf(fresh.sessionId)).toBe(pidOf(a));

    // c was alone in its process: its reset stops it.
    expect(await pool.reset("c")).toBe(true);
    expect(await eventually(() => !isRunning(pidOf(c)))).toBe(true);
    expect(pool.agentProcesses).toBe(1);
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(2);
  });

  it("evicts the least recently active idle session at max_sessions and resumes it with session/load in a shared process", async () => {
    const { pool, events, records } = makePool({ agentEnv: { LOAD_SESSION: "1" }, pool: { sessions_per_agent: 10, max_sessions: 2 } });
    const k1 = (await turn(pool, "k1")).sessionId;
    await turn(pool, "k2");
    await turn(pool, "k3");
    expect(records.filter((r) => r.msg === "session suspended").map((r) => [r.sessionKey, r.reason])).toEqual([["k1", "capacity"]]);
    expect(pool.size).toBe(2);
    const again = await turn(pool, "k1");
    expect(again.sessionId).toBe(k1);
    expect(again.events).toEqual(prose);
    expect(events()).toContain(`load ${k1}`);
    // One process all along: suspending a session left it running for the others.
    expect(events().filter((line) => line.startsWith("start "))).toHaveLength(1);
    expect(pool.agentProcesses).toBe(1);
  });

  it("/cancel stops only its own conversation's turn in a shared process", async () => {
    const { pool, events } = makePool({ pool: { sessions_per_agent: 10 } });
    await Promise.all([turn(pool, "a"), turn(pool, "b")]);
    const first = turn(pool, "a", "slow 2000");
    const second = turn(pool, "b", "slow 2000");
    await eventually(() => events().filter((line) => line.startsWith("prompt ") && line.endsWith(" slow")).length === 2);
    expect(pool.cancel("a")).toBe(true);
    expect((await first).events).toEqual([{ type: "end", stopReason: "cancelled" }]);
    expect((await second).events).toEqual([{ type: "text", text: "slow done" }, { type: "end", stopReason: "end_turn" }]);
  });

  it("a hung turn that ignores session/cancel kills its process: only that process's sessions start over, the others keep theirs", async () => {
    const { pool } = makePool({ pool: { sessions_per_agent: 2, max_sessions: 10, prompt_hard_timeout_secs: 1, hung_grace_secs: 1 } });
    const a = (await turn(pool, "a")).sessionId;
    const b = (await turn(pool, "b")).sessionId;
    const c = (await turn(pool, "c")).sessionId;
    expect(pidOf(b)).toBe(pidOf(a));
    expect(pidOf(c)).not.toBe(pidOf(a));

    const hung = await turn(pool, "a", "hang").catch((err: unknown) => err);
    expect(hung).toBeInstanceOf(HardTimeoutError);
    expect(await eventually(() => !isRunning(pidOf(a)))).toBe(true);
    // b lived in the killed process: a fresh session, with the reset notice.
    const nextB = await turn(pool, "b");
    expect(nextB.sessionId).not.toBe(b);
    expect(nextB.events).toEqual([{ type: "session_reset" }, ...prose]);
    // c's process was never touched.
    expect(isRunning(pidOf(c))).toBe(true);
    const nextC = await turn(pool, "c");
    expect(nextC.sessionId).toBe(c);
    expect(nextC.events).toEqual(prose);
  });

  it("leaves no agent process behind on close", async () => {
    const { pool, events } = makePool({ pool: { sessions_per_agent: 2 } });
    await Promise.all(["a", "b", "c", "d", "e"].map((key) => turn(pool, key)));
    const pids = events()
      .filter((line) => line.startsWith("start "))
      .map((line) => Number(line.split(" ")[1]));
    expect(pids).toHaveLength(3);
    await pool.close();
    for (const pid of pids) expect(await eventually(() => !isRunning(pid))).toBe(true);
  });
});
