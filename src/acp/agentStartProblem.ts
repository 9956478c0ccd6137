import { accessSync, constants, statSync, type Stats } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import type { AgentConfig } from "../config/index.js";
import { errnoOf, type StartProblem } from "../failure/brokerFailure.js";
import { agentEnvironment } from "./agentEnvironment.js";

/** libuv's search path when the child's environment has no PATH. */
const defaultSearchPath = "/usr/bin:/bin";

/**
 * Why `[agent]` cannot start a process, or undefined when it looks startable: the working dir
 * first (Node reports a missing cwd as the *command's* ENOENT), then the command as execvp finds
 * it — a path with a `/` relative to the working dir, a bare name on the agent's own PATH.
 * Synchronous: it runs at start-up, or once after a spawn has already failed.
 */
export function agentStartProblem(agent: AgentConfig, brokerEnv: NodeJS.ProcessEnv): StartProblem | undefined {
  const cwd = resolve(agent.working_dir);
  return workingDirProblem(cwd) ?? commandProblem(agent.command, cwd, agentEnvironment(agent, brokerEnv).PATH);
}

export function workingDirProblem(dir: string): StartProblem | undefined {
  const found = statOf(dir);
  if ("errno" in found) return { configKey: "agent.working_dir", path: dir, errno: found.errno, problem: missing(found.errno) };
  if (!found.stats.isDirectory()) return { configKey: "agent.working_dir", path: dir, errno: "ENOTDIR", problem: "is not a directory" };
  return accessProblem(dir, constants.X_OK) === undefined ? undefined : { configKey: "agent.working_dir", path: dir, errno: "EACCES", problem: "cannot be entered" };
}

export function commandProblem(command: string, cwd: string, searchPath: string | undefined): StartProblem | undefined {
  if (command.includes("/")) {
    const path = resolve(cwd, command);
    const problem = executableProblem(path);
    return problem === undefined ? undefined : { configKey: "agent.command", path, ...problem };
  }
  let notExecutable: string | undefined;
  for (const dir of (searchPath ?? defaultSearchPath).split(delimiter)) {
    const candidate = join(resolve(cwd, dir), command);
    const problem = executableProblem(candidate);
    if (problem === undefined) return undefined;
    if (problem.errno === "EACCES") notExecutable ??= candidate;
  }
  return notExecutable === undefined
    ? { configKey: "agent.command", path: command, errno: "ENOENT", problem: "is not on the agent's PATH" }
    : { configKey: "agent.command", path: notExecutable, errno: "EACCES", problem: "is not executable" };
}

function executableProblem(path: string): { errno: string; problem: string } | undefined {
  const found = statOf(path);
  if ("errno" in found) return { errno: found.errno, problem: missing(found.errno) };
  if (found.stats.isDirectory()) return { errno: "EISDIR", problem: "is a directory" };
  const denied = accessProblem(path, constants.X_OK);
  return denied === undefined ? undefined : { errno: denied, problem: "is not executable" };
}

function statOf(path: string): { stats: Stats } | { errno: string } {
  try {
    return { stats: statSync(path) };
  } catch (err) {
    return { errno: errnoOf(err) ?? "EIO" };
  }
}

function accessProblem(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (err) {
    return errnoOf(err) ?? "EACCES";
  }
}

function missing(errno: string): string {
  if (errno === "ENOENT") return "does not exist";
  if (errno === "ENOTDIR") return "does not exist (a parent is not a directory)";
  if (errno === "EACCES") return "cannot be reached (permission denied)";
  return `cannot be read (${errno})`;
}
