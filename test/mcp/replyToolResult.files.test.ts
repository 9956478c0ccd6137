import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentFileOutcome } from "../../operators/delivery/agentEvent.js";
import { fileResult } from "../../src/mcp/replyToolResult.js";
import { resolveAgentFile } from "../../src/turn/files/resolveAgentFile.js";

const textOf = (outcome: AgentFileOutcome): string => {
  const [block] = fileResult(outcome).content;
  return block?.type === "text" ? block.text : "";
};

describe("fileResult", () => {
  it("tells an accepted file by name and size, as no error", () => {
    expect(fileResult({ kind: "accepted", filename: "report.pdf", size: Math.round(2.1 * 1024 * 1024) })).toStrictEqual({
      content: [{ type: "text", text: "Accepted report.pdf (2.1 MB): it is sent with your reply." }],
    });
    expect(textOf({ kind: "accepted", filename: "a.png", size: 10 })).toBe("Accepted a.png (10 B): it is sent with your reply.");
  });

  it("tells every refusal as a tool error", () => {
    for (const reason of ["not_found", "too_big", "too_many", "invalid", "store_failed"] as const) {
      expect(fileResult({ kind: "refused", reason }).isError, reason).toBe(true);
    }
  });

  it("tells a path that may not be sent in one generic sentence", () => {
    expect(textOf({ kind: "refused", reason: "not_found" })).toBe("No such file may be sent. Give a path to a regular file inside your working directory. Nothing was sent.");
  });

  it("names the limit of a file too big when it is known", () => {
    expect(textOf({ kind: "refused", reason: "too_big", maxBytes: 8 * 1024 * 1024 })).toBe(
      "The file is over this chat's size limit of 8.0 MB; the person is told its name and size. Nothing else was sent.",
    );
    expect(textOf({ kind: "refused", reason: "too_big" })).toBe("The file is over this chat's size limit; the person is told its name and size. Nothing else was sent.");
  });

  it("tells the other refusals what the model may act on", () => {
    expect(textOf({ kind: "refused", reason: "too_many" })).toBe("This turn has sent as many files as it may; nothing was sent.");
    expect(textOf({ kind: "refused", reason: "invalid" })).toBe("The data is not valid base64; nothing was sent.");
    expect(textOf({ kind: "refused", reason: "store_failed" })).toContain("nothing was sent");
  });
});

// The tool is no existence oracle: however a path may not be read, the model reads the same words.
describe("fileResult for every path refusal", () => {
  let base: string;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), "file-result-")));
    await mkdir(join(base, "work", "dir"), { recursive: true });
    await mkdir(join(base, "outside"));
    await writeFile(join(base, "outside", "secret.txt"), "secret");
    await writeFile(join(base, "work", "inside.txt"), "inside");
    await symlink(join(base, "outside", "secret.txt"), join(base, "work", "out-link"));
    await symlink(join(base, "work", "inside.txt"), join(base, "work", "in-link"));
    await symlink(join(base, "outside"), join(base, "work", "escape"));
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("gives the same answer for outside, a symlink either way, a directory, a missing file and an escape", async () => {
    const work = join(base, "work");
    const given = ["../../etc/passwd", "/etc/passwd", join(base, "outside", "secret.txt"), "out-link", "in-link", "escape/secret.txt", "dir", "missing.txt", "../outside/missing.txt"];
    const answers = [];
    for (const path of given) {
      const resolved = await resolveAgentFile({ source: { kind: "path", path } }, { workingDir: work, allowed: [work] }, 1000);
      expect(resolved.kind, path).toBe("refused");
      if (resolved.kind !== "refused") continue;
      answers.push(fileResult({ kind: "refused", reason: resolved.reason }));
    }
    expect(answers).toHaveLength(given.length);
    for (const answer of answers) expect(answer).toStrictEqual(answers[0]);
    const said = JSON.stringify(answers[0]);
    for (const word of ["passwd", "secret", "symlink", "outside", "exist", "directory entry", "not_a_file", "unreadable", base]) expect(said).not.toContain(word);
  });
});
