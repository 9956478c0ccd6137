import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRunning, scriptedAgentPath } from "../helpers/agents.js";
import { finished, runTurnstream, spawnTurnstream, waitForLine } from "../helpers/cli.js";

// `[pool] preload_persisted_sessions = true` through the built CLI: saved sessions are resumed
// before the broker says it is ready, and one that cannot be restored stops start-up with one line
// and leaves no agent running.
const dir = mkdtempSync(join(tmpdir(), "turnstream-preload-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let configs = 0;

/** A config with preloading on, the scripted agent (env as given) and a state dir holding `saved`. */
function setup(agentEnv: Record<string, string>, saved: Record<string, string>): { config: string; events: () => string[] } {
  const n = ++configs;
  const stateDir = join(dir, `state-${n}`);
  const workingDir = join(dir, `work-${n}`);
  mkdirSync(stateDir, { recursive: true });
  mkdirSync(workingDir, { recursive: true });
  writeFileSync(join(stateDir, "sessions.json"), JSON.stringify({ version: 2, sessions: saved }));
  const eventsFile = join(dir, `events-${n}.log`);
  const env = { AGENT_EVENTS_FILE: eventsFile, ...agentEnv };
  const toml = [
    "[agent]",
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([scriptedAgentPath])}`,
    `working_dir = ${JSON.stringify(workingDir)}`,
    "",
    "[agent.env]",
    ...Object.entries(env).map(([key, value]) => `${key} = ${JSON.stringify(value)}`),
    "",
    "[pool]",
    `state_dir = ${JSON.stringify(stateDir)}`,
    "preload_persisted_sessions = true",
    "",
  ].join("\n");
  const config = join(dir, `config-${n}.toml`);
  writeFileSync(config, toml);
  const events = () => {
    try {
      return readFileSync(eventsFile, "utf8").split("\n").filter((line) => line !== "");
    } catch {
      return [];
    }
  };
  return { config, events };
}

const messages = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

describe("turnstream run with preload_persisted_sessions (built CLI)", () => {
  it("resumes every saved session with session/load before 'broker ready', with no prompt", async () => {
    const { config, events } = setup({ LOAD_SESSION: "1" }, { "telegram:chat-1:": "sess-one", "telegram:chat-2:": "sess-two" });
    const child = spawnTurnstream(["run", "--config", config]);
    const done = finished(child);
    await waitForLine(child, (line) => line.includes('"broker ready"'));
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
    const seen = messages(result.stdout);
    expect(seen.indexOf("saved sessions preloaded")).toBeGreaterThan(-1);
    expect(seen.indexOf("saved sessions preloaded")).toBeLessThan(seen.indexOf("broker ready"));
    expect(events().filter((line) => line.startsWith("load "))).toEqual(["load sess-one", "load sess-two"]);
    expect(events().some((line) => line.startsWith("prompt ") || line.startsWith("new "))).toBe(false);
  });

  it("an agent that cannot load sessions stops start-up: exit 1, one line, no agent left running", async () => {
    const { config, events } = setup({}, { "telegram:chat-1:": "sess-one" });
    const result = await runTurnstream(["run", "--config", config]);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n").filter((line) => line !== "")).toEqual([
      "turnstream: pool.preload_persisted_sessions: cannot restore the saved sessions: the agent (scripted-agent) does not support session/load",
    ]);
    expect(messages(result.stdout)).not.toContain("broker ready");
    const pids = events()
      .filter((line) => line.startsWith("start "))
      .map((line) => Number(line.split(" ")[1]));
    expect(pids).toHaveLength(1);
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  });

  it("more saved sessions than max_sessions stops start-up before any agent starts", async () => {
    const { config, events } = setup({ LOAD_SESSION: "1" }, Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`telegram:c${i}:`, `sess-${i}`])));
    const result = await runTurnstream(["run", "--config", config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("turnstream: pool.preload_persisted_sessions: cannot restore the saved sessions: 11 are saved and [pool] max_sessions = 10\n");
    expect(events()).toEqual([]);
  });
});
