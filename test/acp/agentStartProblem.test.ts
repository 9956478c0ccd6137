import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentStartProblem, commandProblem, workingDirProblem } from "../../src/acp/agentStartProblem.js";
import { startProblemMessage } from "../../src/failure/brokerFailure.js";
import { agentConfig } from "../helpers/agents.js";

// Real files on a real file system: the checks are what execvp and chdir will meet.
const dir = mkdtempSync(join(tmpdir(), "turnstream-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bin = join(dir, "bin");
mkdirSync(bin);
writeFileSync(join(bin, "agent-ok"), "#!/bin/sh\n", { mode: 0o755 });
writeFileSync(join(bin, "agent-plain"), "not executable\n", { mode: 0o644 });
const aFile = join(dir, "a-file");
writeFileSync(aFile, "x");

describe("workingDirProblem", () => {
  it.each([
    ["a directory", dir, undefined],
    ["a missing path", join(dir, "nope"), { errno: "ENOENT", problem: "does not exist" }],
    ["a file", aFile, { errno: "ENOTDIR", problem: "is not a directory" }],
    ["a path under a file", join(aFile, "sub"), { errno: "ENOTDIR", problem: "does not exist (a parent is not a directory)" }],
  ])("%s", (_name, path, expected) => {
    const problem = workingDirProblem(path);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toEqual({ configKey: "agent.working_dir", path, ...expected });
  });
});

describe("commandProblem", () => {
  it.each([
    ["a bare name on PATH", "agent-ok", bin, undefined],
    ["an absolute path", join(bin, "agent-ok"), "", undefined],
    ["a relative path, from the working dir", "./bin/agent-ok", "", undefined],
    ["a bare name nowhere on PATH", "agent-missing", bin, { path: "agent-missing", errno: "ENOENT", problem: "is not on the agent's PATH" }],
    ["a bare name found but not executable", "agent-plain", bin, { path: join(bin, "agent-plain"), errno: "EACCES", problem: "is not executable" }],
    ["a missing absolute path", join(bin, "gone"), bin, { path: join(bin, "gone"), errno: "ENOENT", problem: "does not exist" }],
    ["a directory", bin, bin, { path: bin, errno: "EISDIR", problem: "is a directory" }],
  ])("%s", (_name, command, searchPath, expected) => {
    const problem = commandProblem(command, dir, searchPath);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toEqual({ configKey: "agent.command", ...expected });
  });

  it("searches the agent's PATH ([agent.env] PATH wins over the broker's)", () => {
    const agent = { ...agentConfig({ PATH: bin }), command: "agent-ok", working_dir: dir };
    expect(agentStartProblem(agent, { PATH: "/nonexistent" })).toBeUndefined();
    expect(agentStartProblem({ ...agent, env: {} }, { PATH: "/nonexistent" })).toMatchObject({ configKey: "agent.command", problem: "is not on the agent's PATH" });
  });
});

describe("agentStartProblem", () => {
  it("blames a missing working dir before the command (Node reports both as the command's ENOENT)", () => {
    const problem = agentStartProblem({ ...agentConfig(), working_dir: join(dir, "nope") }, process.env);
    expect(problem).toMatchObject({ configKey: "agent.working_dir", errno: "ENOENT" });
    expect(startProblemMessage(problem!)).toBe(`${join(dir, "nope")} does not exist`);
  });

  it("finds nothing wrong with the fixture agent", () => {
    expect(agentStartProblem(agentConfig(), process.env)).toBeUndefined();
  });
});

// Root may execute any file with an x bit, but never one without: the check holds for root too.
chmodSync(join(bin, "agent-plain"), 0o644);
