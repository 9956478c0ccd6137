import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentFile } from "../../../operators/delivery/agentEvent.js";
import type { FileRoots } from "../../../src/turn/files/readAllowedFile.js";
import { resolveAgentFile } from "../../../src/turn/files/resolveAgentFile.js";

let base: string;
let work: string;
let roots: FileRoots;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "resolve-file-")));
  work = join(base, "work");
  await mkdir(work);
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "secret.txt"), "secret");
  roots = { workingDir: work, allowed: [work] };
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const base64 = (data: string, more: Partial<AgentFile> = {}): AgentFile => ({ ...more, source: { kind: "base64", data } });
const path = (given: string, more: Partial<AgentFile> = {}): AgentFile => ({ ...more, source: { kind: "path", path: given } });
const text = (value: string, more: Partial<AgentFile> = {}): AgentFile => ({ ...more, source: { kind: "text", text: value } });

describe("resolveAgentFile: inline base64", () => {
  it("decodes an image with its name and type", async () => {
    expect(await resolveAgentFile(base64(PNG.toString("base64"), { name: "chart.png", mimeType: "image/png" }), roots, 1000)).toStrictEqual({
      kind: "resolved",
      filename: "chart.png",
      mimeType: "image/png",
      bytes: PNG,
    });
  });

  it("decodes every padding exactly, up to a limit of exactly its size", async () => {
    for (const bytes of [Buffer.from([1]), Buffer.from([1, 2]), Buffer.from([1, 2, 3]), Buffer.alloc(0)]) {
      const resolved = await resolveAgentFile(base64(bytes.toString("base64")), roots, bytes.length);
      expect(resolved, bytes.toString("base64")).toMatchObject({ kind: "resolved", bytes });
    }
  });

  it("refuses what is not base64 as invalid (logged the same), keeping the name", async () => {
    for (const data of ["abc", "ab!c", "YW=j", "A===", "====", "YWJj\nZGVm", "YWJj ZGVm", "data:image/png;base64,iVBORw==", "YWJj_-8=", "é123"]) {
      expect(await resolveAgentFile(base64(data, { name: "x.png" }), roots, 1000), JSON.stringify(data)).toStrictEqual({
        kind: "refused",
        reason: "invalid",
        logReason: "invalid",
        filename: "x.png",
      });
    }
  });

  it("refuses base64 over the limit as too_big with the decoded size, measured from its length", async () => {
    expect(await resolveAgentFile(base64("AAA="), roots, 1)).toMatchObject({ kind: "refused", reason: "too_big", logReason: "too_big", size: 2 });
    expect(await resolveAgentFile(base64("AAAA"), roots, 2)).toMatchObject({ kind: "refused", reason: "too_big", size: 3 });
    expect(await resolveAgentFile(base64("AAAAAA=="), roots, 3)).toMatchObject({ kind: "refused", reason: "too_big", size: 4 });
    // Over the limit is told as too big even before it is checked: nothing of it is looked at.
    expect(await resolveAgentFile(base64("!".repeat(16)), roots, 4)).toMatchObject({ kind: "refused", reason: "too_big", size: 12 });
  });

  it("never decodes base64 over the limit (20 MB of it against a 1 MB limit)", async () => {
    const data = "QUJD".repeat(5_000_000);
    const from = vi.spyOn(Buffer, "from");
    try {
      expect(await resolveAgentFile(base64(data, { name: "big.bin" }), roots, 1_000_000)).toStrictEqual({
        kind: "refused",
        reason: "too_big",
        logReason: "too_big",
        filename: "big.bin",
        size: 15_000_000,
      });
      expect(from).not.toHaveBeenCalled();
    } finally {
      from.mockRestore();
    }
  });
});

describe("resolveAgentFile: text", () => {
  it("is the text as UTF-8 bytes", async () => {
    expect(await resolveAgentFile(text("héllo\n", { name: "notes.md" }), roots, 100)).toStrictEqual({
      kind: "resolved",
      filename: "notes.md",
      mimeType: "text/markdown",
      bytes: Buffer.from("héllo\n", "utf8"),
    });
  });

  it("measures the limit in bytes, not characters", async () => {
    expect(await resolveAgentFile(text("éé"), roots, 4)).toMatchObject({ kind: "resolved" });
    expect(await resolveAgentFile(text("ééé"), roots, 4)).toMatchObject({ kind: "refused", reason: "too_big", logReason: "too_big", size: 6 });
  });
});

describe("resolveAgentFile: path", () => {
  it("reads a file inside, named by its base name, typed by its extension", async () => {
    await mkdir(join(work, "reports"));
    await writeFile(join(work, "reports", "q3.pdf"), "%PDF-1.7");
    expect(await resolveAgentFile(path("reports/q3.pdf"), roots, 100)).toStrictEqual({
      kind: "resolved",
      filename: "q3.pdf",
      mimeType: "application/pdf",
      bytes: Buffer.from("%PDF-1.7"),
    });
    expect(await resolveAgentFile(path(join(work, "reports", "q3.pdf")), roots, 100)).toMatchObject({ filename: "q3.pdf" });
  });

  it("prefers the name the agent gave, cut to its base name", async () => {
    await writeFile(join(work, "out.bin"), "x");
    expect(await resolveAgentFile(path("out.bin", { name: "../../Q3 report.pdf" }), roots, 100)).toMatchObject({
      kind: "resolved",
      filename: "Q3 report.pdf",
      mimeType: "application/pdf",
    });
  });

  it("tells the agent not_found for every path that may not be read, and logs why", async () => {
    await symlink(join(base, "outside", "secret.txt"), join(work, "link.txt"));
    await mkdir(join(work, "dir"));
    const cases: [string, string][] = [
      ["../../etc/passwd", "outside"],
      ["/etc/passwd", "outside"],
      [join(base, "outside", "secret.txt"), "outside"],
      ["link.txt", "symlink"],
      ["dir", "not_a_file"],
      ["missing.txt", "unreadable"],
    ];
    for (const [given, logReason] of cases) {
      const resolved = await resolveAgentFile(path(given), roots, 100);
      expect(resolved, given).toMatchObject({ kind: "refused", reason: "not_found", logReason });
      expect(resolved, given).not.toHaveProperty("size");
    }
  });

  it("tells a file over the limit as too_big with its size", async () => {
    await writeFile(join(work, "big.csv"), Buffer.alloc(101));
    expect(await resolveAgentFile(path("big.csv"), roots, 100)).toStrictEqual({
      kind: "refused",
      reason: "too_big",
      logReason: "too_big",
      filename: "big.csv",
      size: 101,
    });
  });
});

describe("resolveAgentFile: names and types", () => {
  const one = Buffer.from([1]).toString("base64");

  it("names a file the agent gave no name by its media type", async () => {
    const cases: [string | undefined, string, string][] = [
      ["image/png", "image.png", "image/png"],
      ["image/jpeg", "image.jpg", "image/jpeg"],
      ["application/pdf", "file.pdf", "application/pdf"],
      ["image/heic", "image", "image/heic"],
      ["application/x-thing", "file", "application/x-thing"],
      [undefined, "file", "application/octet-stream"],
      ["not a type", "file", "application/octet-stream"],
    ];
    for (const [mimeType, filename, type] of cases) {
      const file = base64(one, mimeType === undefined ? {} : { mimeType });
      expect(await resolveAgentFile(file, roots, 10), String(mimeType)).toMatchObject({ kind: "resolved", filename, mimeType: type });
    }
  });

  it("falls back to the type's name for an empty name or one that cleans to nothing", async () => {
    for (const name of ["", "   ", "dir/", "..", "\u202e\u200b"]) {
      expect(await resolveAgentFile(base64(one, { name, mimeType: "image/png" }), roots, 10), JSON.stringify(name)).toMatchObject({ filename: "image.png" });
    }
  });

  it("types a file by its name when the agent gave no type or a malformed one", async () => {
    expect(await resolveAgentFile(base64(one, { name: "fix.patch" }), roots, 10)).toMatchObject({ mimeType: "text/x-diff" });
    expect(await resolveAgentFile(base64(one, { name: "a.PNG", mimeType: "png" }), roots, 10)).toMatchObject({ mimeType: "image/png" });
    expect(await resolveAgentFile(text("x", { name: "x.constructor" }), roots, 10)).toMatchObject({ mimeType: "application/octet-stream" });
  });

  it("cleans the name it shows: no control or bidi characters, at most 200 characters", async () => {
    const resolved = await resolveAgentFile(base64(one, { name: `in\u0000voice\u202efdp.exe${"x".repeat(300)}` }), roots, 10);
    expect(resolved).toMatchObject({ kind: "resolved", filename: `invoicefdp.exe${"x".repeat(186)}` });
  });

  it("names a refused file as it would have been shown", async () => {
    expect(await resolveAgentFile(path("/etc/passwd", { name: "a/b/report.pdf" }), roots, 10)).toMatchObject({ filename: "report.pdf" });
    expect(await resolveAgentFile(path("../../etc/passwd"), roots, 10)).toMatchObject({ filename: "passwd" });
  });
});
