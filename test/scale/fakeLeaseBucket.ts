import { JetStreamApiError } from "@nats-io/jetstream";
import type { KvEntry } from "@nats-io/kv";
import type { LeaseBucket } from "../../src/scale/leaseBucket.js";

interface Stored {
  readonly value: string;
  readonly revision: number;
  readonly operation: "PUT" | "DEL";
  readonly storedAt: number;
}

const conflict = () => new JetStreamApiError({ code: 400, err_code: 10071, description: "wrong last sequence: 1" });

/**
 * An in-memory stand-in for a NATS KV bucket with a bucket TTL, on a test clock: the CAS rules
 * of `create`/`update`/`delete`, entries ageing out, and a `down` switch that makes every call hang
 * (a NATS server that stopped answering). The real server is exercised in partitionLeases.nats.test.ts.
 */
export class FakeLeaseBucket {
  down = false;
  readonly #entries = new Map<string, Stored>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  #sequence = 0;

  constructor(now: () => number, ttlMs: number) {
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  get bucket(): LeaseBucket {
    return this as unknown as LeaseBucket;
  }

  /** The live value of `key`, if any (test inspection; never hangs). */
  peek(key: string): string | undefined {
    const entry = this.#live(key);
    return entry?.operation === "PUT" ? entry.value : undefined;
  }

  create(key: string, value: string): Promise<number> {
    return this.#call(() => {
      if (this.#live(key)?.operation === "PUT") throw conflict();
      return this.#write(key, value, "PUT");
    });
  }

  update(key: string, value: string, revision: number): Promise<number> {
    return this.#call(() => {
      if (this.#live(key)?.revision !== revision) throw conflict();
      return this.#write(key, value, "PUT");
    });
  }

  put(key: string, value: string): Promise<number> {
    return this.#call(() => this.#write(key, value, "PUT"));
  }

  delete(key: string, options?: { previousSeq?: number }): Promise<void> {
    return this.#call(() => {
      if (options?.previousSeq !== undefined && this.#live(key)?.revision !== options.previousSeq) throw conflict();
      this.#write(key, "", "DEL");
    });
  }

  get(key: string): Promise<Pick<KvEntry, "operation" | "revision" | "string" | "created"> | null> {
    return this.#call(() => {
      const entry = this.#live(key);
      return entry === undefined ? null : { operation: entry.operation, revision: entry.revision, string: () => entry.value, created: new Date(entry.storedAt) };
    });
  }

  keys(): Promise<AsyncIterable<string>> {
    return this.#call(() => {
      const live = [...this.#entries.keys()].filter((key) => this.#live(key)?.operation === "PUT");
      return (async function* () {
        yield* live;
      })();
    });
  }

  #call<T>(operation: () => T): Promise<T> {
    if (this.down) return new Promise<T>(() => undefined);
    return Promise.resolve().then(operation);
  }

  #write(key: string, value: string, operation: "PUT" | "DEL"): number {
    const revision = ++this.#sequence;
    this.#entries.set(key, { value, revision, operation, storedAt: this.#now() });
    return revision;
  }

  #live(key: string): Stored | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined && this.#now() - entry.storedAt >= this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }
}
