import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scriptedAgentPath } from "../helpers/agents.js";
import { finished, runTurnstream, spawnTurnstream, waitForLine } from "../helpers/cli.js";

// Issue 17 hole 6: what is visible at start-up stops `turnstream run` before it connects anywhere,
// with exit 2 and one line naming the key.
const dir = mkdtempSync(join(tmpdir(), "turnstream-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const workingDir = join(dir, "work");
mkdirSync(workingDir);
const aFile = join(dir, "a-file");
writeFileSync(aFile, "x");

const lines = (text: string) => text.split("\n").filter((line) => line !== "");
let configs = 0;

/** A config that starts: the scripted agent, a working dir and a state dir that exist. Overrides replace whole lines. */
function configFile(agent: Record<string, string> = {}, pool: Record<string, string> = {}): string {
  const keys = { command: JSON.stringify(process.execPath), args: JSON.stringify([scriptedAgentPath]), working_dir: JSON.stringify(workingDir), ...agent };
  const poolKeys = { state_dir: JSON.stringify(join(dir, "state")), ...pool };
  const toml = ["[agent]", ...Object.entries(keys).map(([k, v]) => `${k} = ${v}`), "", "[pool]", ...Object.entries(poolKeys).map(([k, v]) => `${k} = ${v}`), ""].join("\n");
  const path = join(dir, `config-${++configs}.toml`);
  writeFileSync(path, toml);
  return path;
}

describe("turnstream run: start-up checks (built CLI)", () => {
  it.each([
    ["a state dir that is a file", configFile({}, { state_dir: JSON.stringify(aFile) }), `turnstream: pool.state_dir: ${aFile} is not a directory`],
    [
      "a state dir under a file",
      configFile({}, { state_dir: JSON.stringify(join(aFile, "state")) }),
      `turnstream: pool.state_dir: ${join(aFile, "state")} cannot be created: ${aFile} is not a directory`,
    ],
    ["a missing working dir", configFile({ working_dir: JSON.stringify(join(dir, "nope")) }), `turnstream: agent.working_dir: ${join(dir, "nope")} does not exist`],
    ["a working dir that is a file", configFile({ working_dir: JSON.stringify(aFile) }), `turnstream: agent.working_dir: ${aFile} is not a directory`],
    ["a command not on PATH", configFile({ command: '"no-such-agent-17"', args: "[]" }), "turnstream: agent.command: no-such-agent-17 is not on the agent's PATH"],
    ["a command path that does not exist", configFile({ command: JSON.stringify(join(dir, "gone")) }), `turnstream: agent.command: ${join(dir, "gone")} does not exist`],
    ["a command that is not executable", configFile({ command: JSON.stringify(aFile) }), `turnstream: agent.command: ${aFile} is not executable`],
  ])("%s: exit 2, one line naming the key, nothing logged", async (_name, file, line) => {
    const result = await runTurnstream(["run", "--config", file]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual([line]);
    expect(result.stdout).toBe(""); // refused before any logger, connection or agent
  });

  it("an edge has no agent and no state dir to check", async () => {
    // Refused for the embedded bus (edges need NATS), not for the working dir it never uses.
    const result = await runTurnstream(["run", "--role", "edge", "--config", configFile({ working_dir: JSON.stringify(join(dir, "nope")) })]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("agent.working_dir");
  });

  it("a config whose agent and state dir are fine starts", async () => {
    const child = spawnTurnstream(["run", "--config", configFile()]);
    const done = finished(child);
    await waitForLine(child, (line) => line.includes('"broker ready"'));
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });

  it("the built-in default command (openab-agent) is only a warning: a bare `turnstream run` still starts", async () => {
    const child = spawnTurnstream(["run"], { env: { OPENAB_AGENT_COMMAND: "", HOME: dir } });
    const done = finished(child);
    await waitForLine(child, (line) => line.includes('"broker ready"'));
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
    const notice = lines(result.stdout)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((record) => record.msg === "agent command not found at start-up");
    expect(notice).toMatchObject({ level: 40, reason: "agent_command_not_found", configKey: "agent.command", path: "openab-agent" });
  });

  it("OPENAB_AGENT_COMMAND naming a missing command is refused like [agent] command", async () => {
    const result = await runTurnstream(["run"], { env: { OPENAB_AGENT_COMMAND: "no-such-agent-17 --acp", HOME: dir } });
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual(["turnstream: agent.command: no-such-agent-17 is not on the agent's PATH"]);
  });
});
