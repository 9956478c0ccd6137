import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stateDirProblem } from "../../src/state/stateDirProblem.js";

const dir = mkdtempSync(join(tmpdir(), "turnstream-statedir-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const aFile = join(dir, "a-file");
writeFileSync(aFile, "x");
mkdirSync(join(dir, "with-dir-file", "sessions.json"), { recursive: true });

describe("stateDirProblem (real file system)", () => {
  it.each([
    ["an existing directory", dir, undefined],
    ["a directory to be created", join(dir, "new", "deeper"), undefined],
    ["a file", aFile, { path: aFile, errno: "ENOTDIR", problem: "is not a directory" }],
    ["a path under a file", join(aFile, "x", "y"), { path: join(aFile, "x", "y"), errno: "ENOTDIR", problem: `cannot be created: ${aFile} is not a directory` }],
    ["a sessions.json that is a directory", join(dir, "with-dir-file"), { path: join(dir, "with-dir-file", "sessions.json"), errno: "EISDIR", problem: "is not a file" }],
  ])("%s", (_name, path, expected) => {
    const problem = stateDirProblem(path);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toEqual({ configKey: "pool.state_dir", ...expected });
  });
});
