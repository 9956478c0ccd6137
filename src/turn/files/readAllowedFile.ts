import { constants } from "node:fs";
import { open, readlink, realpath, type FileHandle } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** Where an agent's files may come from: its working directory, and `[agent] outbound_dir`. */
export interface FileRoots {
  /** Relative paths are taken from here: the session's working directory. */
  readonly workingDir: string;
  /** Every directory a file may be inside (the working directory first). */
  readonly allowed: readonly string[];
}

/** Why a path was not read: logged with this reason; the agent is only ever told `not_found`. */
export type PathRefusal = "outside" | "symlink" | "not_a_file" | "unreadable" | "too_big";

export type ReadFileResult =
  | { readonly kind: "read"; readonly bytes: Uint8Array; readonly path: string }
  | { readonly kind: "refused"; readonly reason: PathRefusal; readonly size?: number };

/**
 * Reads a file an agent named, if it may: `given` resolved against the working directory must
 * name a regular file inside one of the allowed directories. The last segment is opened without
 * following a symlink (`O_NOFOLLOW`), and the path the open file really has (`/proc/self/fd`, so
 * a symlinked directory or a swap between check and open changes nothing) must be inside an
 * allowed directory's real path. At most `maxBytes` are read: a bigger file is refused with its
 * size, before anything is read.
 */
export async function readAllowedFile(given: string, roots: FileRoots, maxBytes: number): Promise<ReadFileResult> {
  if (given === "" || given.includes("\0")) return { kind: "refused", reason: "outside" };
  const candidate = resolve(roots.workingDir, given);
  const realRoots = await realRootsOf(roots.allowed);
  // Lexically outside every root: refused before the file system is touched.
  if (!realRoots.some((root) => inside(root, candidate)) && !roots.allowed.some((root) => inside(resolve(root), candidate))) {
    return { kind: "refused", reason: "outside" };
  }
  let handle: FileHandle;
  try {
    handle = await open(candidate, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return { kind: "refused", reason: (err as NodeJS.ErrnoException).code === "ELOOP" ? "symlink" : "unreadable" };
  }
  try {
    const opened = await openedPath(handle, candidate);
    if (opened === undefined || !realRoots.some((root) => inside(root, opened))) return { kind: "refused", reason: "outside" };
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: "refused", reason: "not_a_file" };
    if (stat.size > maxBytes) return { kind: "refused", reason: "too_big", size: stat.size };
    const bytes = await readUpTo(handle, maxBytes);
    if (bytes === undefined) return { kind: "refused", reason: "too_big", size: stat.size };
    return { kind: "read", bytes, path: opened };
  } catch {
    return { kind: "refused", reason: "unreadable" };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function realRootsOf(roots: readonly string[]): Promise<string[]> {
  const real = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return real.filter((root): root is string => root !== undefined);
}

/** The path the open file has now: Linux's `/proc/self/fd` link, else the candidate's real path. */
async function openedPath(handle: FileHandle, candidate: string): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return realpath(candidate).catch(() => undefined);
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** The whole file, or undefined when it grew past `maxBytes` while being read. */
async function readUpTo(handle: FileHandle, maxBytes: number): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(Math.min(maxBytes + 1, 1024 * 1024));
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) return undefined;
    chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
  }
  return Buffer.concat(chunks, total);
}
