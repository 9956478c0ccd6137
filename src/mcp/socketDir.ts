import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReplyToolEndpointError } from "./errors.js";

/** `sun_path` holds 108 bytes on Linux (104 on macOS and the BSDs), the terminating NUL included. */
export const MAX_SOCKET_PATH_BYTES = process.platform === "linux" ? 107 : 103;
/** Where the socket goes when TMPDIR is too long for it: short on every unix. */
export const FALLBACK_SOCKET_BASE = "/tmp";
const DIR_PREFIX = "turnstream-mcp-";
const SOCKET_NAME = "reply.sock";

export interface SocketDir {
  /** A fresh directory only this user can enter (0700). */
  readonly dir: string;
  /** The socket's path inside it, short enough for `sun_path`. */
  readonly path: string;
  /** The directory is under `FALLBACK_SOCKET_BASE`, not TMPDIR, which was too long. */
  readonly fallback: boolean;
}

/** The socket's path in a directory made under `base` (mkdtemp adds six characters to the prefix). */
const pathBytes = (base: string): number => Buffer.byteLength(join(base, `${DIR_PREFIX}XXXXXX`, SOCKET_NAME));

/**
 * A fresh 0700 directory for the reply tool's socket, under TMPDIR, or under /tmp when TMPDIR is
 * so long that the socket's path would not fit `sun_path` — where the system would silently cut it
 * short and create the socket elsewhere, outside the private directory. Throws
 * `ReplyToolEndpointError` naming TMPDIR when neither can hold it.
 */
export async function makeSocketDir(base = tmpdir(), fallbackBase = FALLBACK_SOCKET_BASE): Promise<SocketDir> {
  const fits = pathBytes(base) <= MAX_SOCKET_PATH_BYTES;
  const chosen = fits ? base : fallbackBase;
  let dir: string;
  try {
    if (!fits && pathBytes(fallbackBase) > MAX_SOCKET_PATH_BYTES) throw new Error("ENAMETOOLONG");
    dir = await mkdtemp(join(chosen, DIR_PREFIX));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ReplyToolEndpointError(
      fits
        ? `cannot create the reply tool's socket directory in TMPDIR (${code}); set TMPDIR to a writable directory`
        : `TMPDIR is too long for the reply tool's unix socket (its path would be ${pathBytes(base)} bytes, at most ${MAX_SOCKET_PATH_BYTES} fit) and ${fallbackBase} is not usable (${code}); set TMPDIR to a shorter directory`,
      { cause: err },
    );
  }
  try {
    await chmod(dir, 0o700);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new ReplyToolEndpointError(`cannot make the reply tool's socket directory private (${(err as NodeJS.ErrnoException).code ?? "error"})`, { cause: err });
  }
  return { dir, path: join(dir, SOCKET_NAME), fallback: !fits };
}
