import type { KV } from "@nats-io/kv";
import { StateStoreError } from "../errors.js";
import type { SessionStore } from "../sessionStore.js";
import { kvKey } from "./kvKey.js";
import { liveEntry } from "./storedRecord.js";

/**
 * ACP session ids in a NATS KV bucket (no TTL), so a worker that takes over a partition resumes
 * the sessions of its keys with `session/load`. Last writer wins: one session key is served by one
 * worker at a time (its partition's lease holder), so plain `put` suffices.
 */
export class KvSessionStore implements SessionStore {
  readonly #kv: KV;

  constructor(kv: KV) {
    this.#kv = kv;
  }

  async get(key: string): Promise<string | undefined> {
    try {
      return (await liveEntry(this.#kv, kvKey(key)))?.string();
    } catch (err) {
      throw new StateStoreError("sessions", "get", key, { cause: err });
    }
  }

  async set(key: string, sessionId: string): Promise<void> {
    try {
      await this.#kv.put(kvKey(key), sessionId);
    } catch (err) {
      throw new StateStoreError("sessions", "set", key, { cause: err });
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.#kv.delete(kvKey(key));
    } catch (err) {
      throw new StateStoreError("sessions", "delete", key, { cause: err });
    }
  }
}
