import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { defer, EMPTY, ignoreElements, type Observable, of } from "rxjs";
import { legacySessionKey } from "./legacySessionKey.js";
import { isJsonObject } from "../../operators/ingress/frames/jsonObject.js";

/**
 * Where the pool remembers ACP session ids per session key, so a session evicted from memory or
 * lost in a restart resumes with `session/load`. The NATS KV store implements the same interface.
 * Each operation is a cold Observable, done once per subscription: `get` emits the id (or
 * `undefined`), `set` and `delete` complete without a value; a failure is the Observable's error.
 */
export interface SessionStore {
  get(key: string): Observable<string | undefined>;
  set(key: string, sessionId: string): Observable<never>;
  delete(key: string): Observable<never>;
  /**
   * Every session key with a saved id, sorted (for `[pool] preload_persisted_sessions`); old-format
   * keys still waiting to be claimed have no session key and are not among them. A store shared by
   * several workers need not list (preloading is for one process).
   */
  keys?(): Observable<readonly string[]>;
}

/** A `SessionStore` in one process's memory; each operation runs synchronously on subscription. */
export class MemorySessionStore implements SessionStore {
  readonly #ids = new Map<string, string>();

  get(key: string): Observable<string | undefined> {
    return defer(() => of(this.#ids.get(key)));
  }

  set(key: string, sessionId: string): Observable<never> {
    return defer(() => {
      this.#ids.set(key, sessionId);
      return EMPTY;
    });
  }

  delete(key: string): Observable<never> {
    return defer(() => {
      this.#ids.delete(key);
      return EMPTY;
    });
  }

  keys(): Observable<readonly string[]> {
    return defer(() => of([...this.#ids.keys()].sort()));
  }
}

/** What `FileSessionStore` holds: current keys, and old-format keys not yet claimed. */
interface SessionIds {
  readonly sessions: Map<string, string>;
  readonly legacy: Map<string, string>;
}

export interface FileSessionStoreOptions {
  /** Called once per load of a file that holds old-format keys, with how many wait to be claimed. */
  readonly onLegacyKeys?: (count: number) => void;
}

/**
 * A JSON file `{ "version": 2, "sessions": { sessionKey: sessionId }, "legacy": { oldKey: sessionId } }`.
 * Every change rewrites it atomically (temp file + rename), one write at a time, so a crash leaves
 * the old or the new file, never half of one.
 *
 * A file of an earlier turnstream (a flat `{ "platform:thread_or_channel": sessionId }`) is read as
 * all `legacy`: an old key names a thread or a channel but not both, so it cannot be turned into a
 * key up front. Instead the first conversation whose `legacySessionKey` it is claims it on `get`
 * (the id moves to that conversation's key), and no other conversation ever sees it; `delete` of
 * a key drops its old-format counterpart too, so `/reset` before any turn still starts afresh.
 */
export class FileSessionStore implements SessionStore {
  readonly #path: string;
  readonly #options: FileSessionStoreOptions;
  #ids: Promise<SessionIds> | undefined;
  #writes: Promise<void> = Promise.resolve();

  constructor(path: string, options: FileSessionStoreOptions = {}) {
    this.#path = path;
    this.#options = options;
  }

  get(key: string): Observable<string | undefined> {
    return defer(() => this.#get(key));
  }

  set(key: string, sessionId: string): Observable<never> {
    return defer(() => this.#set(key, sessionId)).pipe(ignoreElements());
  }

  delete(key: string): Observable<never> {
    return defer(() => this.#delete(key)).pipe(ignoreElements());
  }

  keys(): Observable<readonly string[]> {
    return defer(async () => [...(await this.#load()).sessions.keys()].sort());
  }

  async #get(key: string): Promise<string | undefined> {
    const ids = await this.#load();
    const current = ids.sessions.get(key);
    if (current !== undefined || ids.legacy.size === 0) return current;
    const old = legacySessionKey(key);
    const claimed = old === undefined ? undefined : ids.legacy.get(old);
    if (old === undefined || claimed === undefined) return undefined;
    ids.legacy.delete(old);
    ids.sessions.set(key, claimed);
    await this.#persist(ids);
    return claimed;
  }

  async #set(key: string, sessionId: string): Promise<void> {
    const ids = await this.#load();
    if (ids.sessions.get(key) === sessionId) return;
    ids.sessions.set(key, sessionId);
    await this.#persist(ids);
  }

  async #delete(key: string): Promise<void> {
    const ids = await this.#load();
    const old = legacySessionKey(key);
    const dropped = ids.sessions.delete(key);
    if ((old !== undefined && ids.legacy.delete(old)) || dropped) await this.#persist(ids);
  }

  #load(): Promise<SessionIds> {
    if (this.#ids !== undefined) return this.#ids;
    const ids = readFile(this.#path, "utf8").then(
      (text) => {
        const parsed = parseSessionsFile(JSON.parse(text));
        // Anything else is refused, never read as empty: the next write would wipe it.
        if (parsed === undefined) throw new SyntaxError(`${this.#path} is not a JSON object of session ids`);
        if (parsed.legacy.size > 0) this.#options.onLegacyKeys?.(parsed.legacy.size);
        return parsed;
      },
      (err: NodeJS.ErrnoException): SessionIds => {
        if (err.code === "ENOENT") return { sessions: new Map(), legacy: new Map() };
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

  #persist(ids: SessionIds): Promise<void> {
    const file = { version: 2, sessions: Object.fromEntries(ids.sessions), ...(ids.legacy.size > 0 ? { legacy: Object.fromEntries(ids.legacy) } : {}) };
    const snapshot = `${JSON.stringify(file, null, 2)}\n`;
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

/** The ids of a version-2 file, or of an earlier flat one (all legacy); `undefined` for anything else. */
function parseSessionsFile(parsed: unknown): SessionIds | undefined {
  if (!isJsonObject(parsed)) return undefined;
  if (isIdMap(parsed)) return { sessions: new Map(), legacy: new Map(Object.entries(parsed)) }; // version 2 has a number
  const { version, sessions, legacy = {} } = parsed;
  if (version !== 2 || !isIdMap(sessions) || !isIdMap(legacy)) return undefined;
  return { sessions: new Map(Object.entries(sessions)), legacy: new Map(Object.entries(legacy)) };
}

function isIdMap(value: unknown): value is Record<string, string> {
  return isJsonObject(value) && Object.values(value).every((id) => typeof id === "string");
}
