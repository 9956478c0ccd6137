import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, open, realpath, rm, symlink, truncate, writeFile, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readAllowedFile, type FileRoots } from "../../../src/turn/files/readAllowedFile.js";

// Real directories under the system temp dir: <base>/work (the working dir), <base>/out
// (outbound_dir), <base>/outside (where nothing may be read from).
let base: string;
let work: string;
let out: string;
let outside: string;
let roots: FileRoots;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "read-allowed-")));
  work = join(base, "work");
  out = join(base, "out");
  outside = join(base, "outside");
  await Promise.all([mkdir(work), mkdir(out), mkdir(outside)]);
  await writeFile(join(outside, "secret.txt"), "secret");
  roots = { workingDir: work, allowed: [work, out] };
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const MAX = 1024;

describe("readAllowedFile", () => {
  it("reads a file inside the working directory, bytes equal, with its real path", async () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    await writeFile(join(work, "chart.png"), bytes);
    const read = await readAllowedFile("chart.png", roots, MAX);
    expect(read).toStrictEqual({ kind: "read", bytes: Buffer.from(bytes), path: join(work, "chart.png") });
    expect(Buffer.compare(Buffer.from((read as { bytes: Uint8Array }).bytes), Buffer.from(bytes))).toBe(0);
  });

  it("reads a relative path in a subdirectory, an absolute one inside, and one that leaves and comes back", async () => {
    await mkdir(join(work, "reports"));
    await writeFile(join(work, "reports", "q3.pdf"), "%PDF");
    for (const given of ["reports/q3.pdf", join(work, "reports", "q3.pdf"), "reports/../reports/./q3.pdf", "../work/reports/q3.pdf"]) {
      expect(await readAllowedFile(given, roots, MAX), given).toMatchObject({ kind: "read", path: join(work, "reports", "q3.pdf") });
    }
  });

  it("reads an empty file", async () => {
    await writeFile(join(work, "empty"), "");
    expect(await readAllowedFile("empty", roots, MAX)).toStrictEqual({ kind: "read", bytes: Buffer.alloc(0), path: join(work, "empty") });
  });

  it("refuses ../../etc/passwd as outside", async () => {
    expect(await readAllowedFile("../../etc/passwd", roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
    expect(await readAllowedFile("../outside/secret.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
  });

  it("refuses an absolute path outside as outside", async () => {
    expect(await readAllowedFile("/etc/passwd", roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
    expect(await readAllowedFile(join(outside, "secret.txt"), roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
  });

  it("refuses a sibling whose name starts with the root's (work-evil is not inside work)", async () => {
    await mkdir(join(base, "work-evil"));
    await writeFile(join(base, "work-evil", "x.txt"), "x");
    expect(await readAllowedFile(join(base, "work-evil", "x.txt"), roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
  });

  it("refuses the working directory itself, an empty path and a path with a NUL as outside", async () => {
    for (const given of [".", work, "", "chart.png\0.txt"]) {
      expect(await readAllowedFile(given, roots, MAX), JSON.stringify(given)).toStrictEqual({ kind: "refused", reason: "outside" });
    }
  });

  it("refuses a symlink (the last segment) pointing outside as symlink", async () => {
    await symlink(join(outside, "secret.txt"), join(work, "link.txt"));
    expect(await readAllowedFile("link.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "symlink" });
  });

  it("refuses a symlink pointing inside too: the rule is no symlinks", async () => {
    await writeFile(join(work, "real.txt"), "real");
    await symlink(join(work, "real.txt"), join(work, "alias.txt"));
    await symlink("real.txt", join(work, "relative-alias.txt"));
    expect(await readAllowedFile("alias.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "symlink" });
    expect(await readAllowedFile("relative-alias.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "symlink" });
  });

  it("refuses a dangling symlink as symlink", async () => {
    await symlink(join(base, "nowhere"), join(work, "dangling"));
    expect(await readAllowedFile("dangling", roots, MAX)).toStrictEqual({ kind: "refused", reason: "symlink" });
  });

  it("refuses a file behind a symlinked directory in the middle that points outside as outside", async () => {
    await symlink(outside, join(work, "escape"));
    expect(await readAllowedFile("escape/secret.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
    expect(await readAllowedFile(join(work, "escape", "secret.txt"), roots, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
  });

  it("reads a file behind a symlinked directory that stays inside (only the real path counts)", async () => {
    await mkdir(join(work, "real"));
    await writeFile(join(work, "real", "x.txt"), "x");
    await symlink(join(work, "real"), join(work, "via"));
    expect(await readAllowedFile("via/x.txt", roots, MAX)).toMatchObject({ kind: "read", path: join(work, "real", "x.txt") });
  });

  it("reads from the second allowed directory (outbound_dir), by absolute path or relative to the working dir", async () => {
    await writeFile(join(out, "report.pdf"), "%PDF-1.7");
    const expected = { kind: "read", bytes: Buffer.from("%PDF-1.7"), path: join(out, "report.pdf") };
    expect(await readAllowedFile(join(out, "report.pdf"), roots, MAX)).toStrictEqual(expected);
    expect(await readAllowedFile("../out/report.pdf", roots, MAX)).toStrictEqual(expected);
  });

  it("refuses a path in outbound_dir when only the working dir is allowed", async () => {
    await writeFile(join(out, "report.pdf"), "%PDF");
    expect(await readAllowedFile(join(out, "report.pdf"), { workingDir: work, allowed: [work] }, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
  });

  it("refuses everything when no directory is allowed; nothing is found in an allowed one that does not exist", async () => {
    await writeFile(join(work, "a.txt"), "a");
    expect(await readAllowedFile("a.txt", { workingDir: work, allowed: [] }, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
    const gone = join(base, "gone");
    expect(await readAllowedFile("a.txt", { workingDir: gone, allowed: [gone] }, MAX)).toStrictEqual({ kind: "refused", reason: "unreadable" });
  });

  it("refuses a directory as not_a_file", async () => {
    await mkdir(join(work, "sub"));
    expect(await readAllowedFile("sub", roots, MAX)).toStrictEqual({ kind: "refused", reason: "not_a_file" });
  });

  // Opened O_NONBLOCK: an open for reading with no writer would otherwise wait forever.
  it("refuses a FIFO as not_a_file at once, though no one writes to it", { timeout: 5_000 }, async () => {
    execFileSync("mkfifo", [join(work, "pipe")]);
    expect(await readAllowedFile("pipe", roots, MAX)).toStrictEqual({ kind: "refused", reason: "not_a_file" });
  });

  it("refuses a file over maxBytes as too_big with its size, before reading a byte of it (a sparse 5 GB file)", async () => {
    await writeFile(join(work, "big.bin"), Buffer.alloc(MAX + 1, 1));
    await writeFile(join(work, "huge.bin"), "");
    await truncate(join(work, "huge.bin"), 5 * 1024 ** 3);
    const probe = await open(join(work, "big.bin"));
    const read = vi.spyOn(Object.getPrototypeOf(probe) as FileHandle, "read");
    await probe.close();
    try {
      expect(await readAllowedFile("big.bin", roots, MAX)).toStrictEqual({ kind: "refused", reason: "too_big", size: MAX + 1 });
      expect(await readAllowedFile("huge.bin", roots, 50_000_000)).toStrictEqual({ kind: "refused", reason: "too_big", size: 5 * 1024 ** 3 });
      expect(read).not.toHaveBeenCalled();
      // The spy does see a read: a file within the limit is read through it.
      await readAllowedFile("big.bin", roots, MAX + 1);
      expect(read).toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
  });

  it("reads a file of exactly maxBytes, and one larger than its read chunk", async () => {
    await writeFile(join(work, "edge.bin"), Buffer.alloc(MAX, 2));
    expect(await readAllowedFile("edge.bin", roots, MAX)).toMatchObject({ kind: "read", bytes: Buffer.alloc(MAX, 2) });
    // Read 1 MiB at a time: a file of two and a bit chunks comes back whole and in order.
    const chunks = Buffer.alloc(2 * 1024 * 1024 + 5);
    for (let i = 0; i < chunks.length; i += 4093) chunks[i] = (i % 251) + 1;
    await writeFile(join(work, "chunks.bin"), chunks);
    const read = await readAllowedFile("chunks.bin", roots, 4 * 1024 * 1024);
    expect(read.kind).toBe("read");
    expect(Buffer.compare(Buffer.from((read as { bytes: Uint8Array }).bytes), chunks)).toBe(0);
  });

  it("refuses a missing file as unreadable", async () => {
    expect(await readAllowedFile("missing.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "unreadable" });
    expect(await readAllowedFile("nodir/missing.txt", roots, MAX)).toStrictEqual({ kind: "refused", reason: "unreadable" });
  });

  it("refuses a path through a file as unreadable", async () => {
    await writeFile(join(work, "plain.txt"), "x");
    expect(await readAllowedFile("plain.txt/inner", roots, MAX)).toStrictEqual({ kind: "refused", reason: "unreadable" });
  });

  it("works when the working directory is given through a symlink", async () => {
    const linked = join(base, "linked-work");
    await symlink(work, linked);
    await writeFile(join(work, "chart.png"), "png");
    const viaLink: FileRoots = { workingDir: linked, allowed: [linked, out] };
    expect(await readAllowedFile("chart.png", viaLink, MAX)).toStrictEqual({ kind: "read", bytes: Buffer.from("png"), path: join(work, "chart.png") });
    expect(await readAllowedFile(join(linked, "chart.png"), viaLink, MAX)).toMatchObject({ kind: "read" });
    expect(await readAllowedFile(join(work, "chart.png"), viaLink, MAX)).toMatchObject({ kind: "read" });
    expect(await readAllowedFile("../outside/secret.txt", viaLink, MAX)).toStrictEqual({ kind: "refused", reason: "outside" });
  });
});
