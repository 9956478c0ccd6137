import { accessSync, constants, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errnoOf, type StartProblem } from "../failure/brokerFailure.js";

/**
 * Why the session file store cannot work in `dir`, or undefined: `dir` must be a writable
 * directory (or creatable: its nearest existing ancestor one), and a `sessions.json` already in it
 * must be a readable, writable file. Synchronous: it runs once, at start-up. (Root passes every
 * write check; a file where a directory should be fails for root too.)
 */
export function stateDirProblem(stateDir: string): StartProblem | undefined {
  const dir = resolve(stateDir);
  const found = kindOf(dir);
  if (found === "directory") {
    if (!allowed(dir, constants.W_OK | constants.X_OK)) return problem(dir, "EACCES", "is not writable");
    const file = join(dir, "sessions.json");
    const existing = kindOf(file);
    if (existing === "other" || existing === "directory") return problem(file, "EISDIR", "is not a file");
    if (existing === "unreachable") return problem(file, "EACCES", "cannot be reached (permission denied)");
    if (existing === "file" && !allowed(file, constants.R_OK | constants.W_OK)) return problem(file, "EACCES", "is not readable and writable");
    return undefined;
  }
  if (found === "unreachable") return problem(dir, "EACCES", "cannot be reached (permission denied)");
  if (found === "file" || found === "other") return problem(dir, "ENOTDIR", "is not a directory");
  // Missing: created on the first write, so its nearest existing ancestor must let that happen.
  let ancestor = dirname(dir);
  while (kindOf(ancestor) === "missing" && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
  const kind = kindOf(ancestor);
  if (kind === "unreachable") return problem(dir, "EACCES", `cannot be created: ${ancestor} cannot be reached`);
  if (kind !== "directory") return problem(dir, "ENOTDIR", `cannot be created: ${ancestor} is not a directory`);
  if (!allowed(ancestor, constants.W_OK | constants.X_OK)) return problem(dir, "EACCES", `cannot be created: ${ancestor} is not writable`);
  return undefined;
}

function problem(path: string, errno: string, what: string): StartProblem {
  return { configKey: "pool.state_dir", path, errno, problem: what };
}

function kindOf(path: string): "directory" | "file" | "other" | "missing" | "unreachable" {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
  } catch (err) {
    // ENOTDIR: a parent is a file; the walk up finds it.
    const errno = errnoOf(err);
    return errno === "ENOENT" || errno === "ENOTDIR" ? "missing" : "unreachable";
  }
}

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}
