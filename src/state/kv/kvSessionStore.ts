import type { KV } from "@nats-io/kv";
import { catchError, defer, ignoreElements, type Observable, throwError } from "rxjs";
import { StateStoreError } from "../errors.js";
import { legacySessionKey } from "../legacySessionKey.js";
import type { SessionStore } from "../sessionStore.js";
import { kvKey } from "./kvKey.js";
import { isCasConflict, liveEntry } from "./storedRecord.js";

/**
 * Where a session key's id lives: `v2.` + `kvKey(key)`. Earlier turnstream versions wrote
 * `kvKey("platform:thread_or_channel")` with no prefix; `kvKey` never makes a 2-character token
 * before a `.`, so the two kinds never meet in one bucket.
 */
export const kvSessionKey = (key: string): string => `v2.${kvKey(key)}`;

/**
 * ACP session ids in a NATS KV bucket (no TTL), so a worker that takes over a partition resumes
 * the sessions of its keys with `session/load`. Last writer wins: one session key is served by one
 * worker at a time (its partition's lease holder), so plain `put` suffices.
 *
 * An entry of an earlier version (`legacySessionKey`) is claimed by the first conversation that
 * asks for it, as in `FileSessionStore`: deleted at the revision read (so of two workers asking
 * for it, one wins and the other starts afresh), then written under the new key. A worker that
 * dies between the two loses that id: its conversation starts a new session, never another's.
 *
 * Each operation is cold: its round trips run once per subscription.
 */
export class KvSessionStore implements SessionStore {
  readonly #kv: KV;

  constructor(kv: KV) {
    this.#kv = kv;
  }

  get(key: string): Observable<string | undefined> {
    return this.#io("get", key, async () => (await liveEntry(this.#kv, kvSessionKey(key)))?.string() ?? (await this.#claimLegacy(key)));
  }

  set(key: string, sessionId: string): Observable<never> {
    return this.#io("set", key, () => this.#kv.put(kvSessionKey(key), sessionId)).pipe(ignoreElements());
  }

  delete(key: string): Observable<never> {
    return this.#io("delete", key, async () => {
      await this.#kv.delete(kvSessionKey(key));
      const old = legacySessionKey(key);
      // Checked first: a delete marker per /reset of every conversation would pile up in a bucket without TTL.
      if (old !== undefined && (await liveEntry(this.#kv, kvKey(old))) !== undefined) await this.#kv.delete(kvKey(old));
    }).pipe(ignoreElements());
  }

  /** `work` on subscription, its failure a StateStoreError with the client's error as `cause`. */
  #io<T>(operation: "get" | "set" | "delete", key: string, work: () => Promise<T>): Observable<T> {
    return defer(work).pipe(catchError((err: unknown) => throwError(() => new StateStoreError("sessions", operation, key, { cause: err }))));
  }

  async #claimLegacy(key: string): Promise<string | undefined> {
    const old = legacySessionKey(key);
    if (old === undefined) return undefined;
    const entry = await liveEntry(this.#kv, kvKey(old));
    if (entry === undefined) return undefined;
    try {
      await this.#kv.delete(kvKey(old), { previousSeq: entry.revision });
    } catch (err) {
      if (isCasConflict(err)) return undefined; // another conversation claimed it first
      throw err;
    }
    const sessionId = entry.string();
    await this.#kv.put(kvSessionKey(key), sessionId);
    return sessionId;
  }
}
