import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Where the pool remembers ACP session ids per session key, so a session evicted from memory or
 * lost in a restart resumes with `session/load`. The NATS KV store implements the same interface.
 */
export interface SessionStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, sessionId: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export class MemorySessionStore implements SessionStore {
  readonly #ids = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.#ids.get(key);
  }
  async set(key: string, sessionId: string): Promise<void> {
    this.#ids.set(key, sessionId);
  }
  async delete(key: string): Promise<void> {
    this.#ids.delete(key);
  }
}

/**
 * A JSON file of `{ sessionKey: sessionId }`. Every change rewrites it atomically (temp file +
 * rename), one write at a time, so a crash leaves the old or the new file, never half of one.
 */
export class FileSessionStore implements SessionStore {
  readonly #path: string;
  #ids: Promise<Map<string, string>> | undefined;
  #writes: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.#load()).get(key);
  }

  async set(key: string, sessionId: string): Promise<void> {
    const ids = await this.#load();
    if (ids.get(key) === sessionId) return;
    ids.set(key, sessionId);
    await this.#persist(ids);
  }

  async delete(key: string): Promise<void> {
    const ids = await this.#load();
    if (ids.delete(key)) await this.#persist(ids);
  }

  #load(): Promise<Map<string, string>> {
    if (this.#ids !== undefined) return this.#ids;
    const ids = readFile(this.#path, "utf8").then(
      (text) => {
        const parsed: unknown = JSON.parse(text);
        // Anything but { key: "id" } is refused, never read as empty: the next write would wipe it.
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((id) => typeof id === "string")) {
          throw new SyntaxError(`${this.#path} is not a JSON object of session ids`);
        }
        return new Map(Object.entries(parsed as Record<string, string>));
      },
      (err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return new Map<string, string>();
        throw err;
      },
    );
    // A failed read is retried on the next call, so a repaired file needs no restart.
    ids.catch(() => {
      if (this.#ids === ids) this.#ids = undefined;
    });
    this.#ids = ids;
    return ids;
  }

  #persist(ids: Map<string, string>): Promise<void> {
    const snapshot = `${JSON.stringify(Object.fromEntries(ids), null, 2)}\n`;
    const write = this.#writes.then(async () => {
      await mkdir(dirname(this.#path), { recursive: true });
      const temp = `${this.#path}.${process.pid}.tmp`;
      await writeFile(temp, snapshot, { mode: 0o600 });
      await rename(temp, this.#path);
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }
}
