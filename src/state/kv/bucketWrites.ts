import type { KV } from "@nats-io/kv";
import { headers as natsHeaders } from "@nats-io/transport-node";
import type { JetStreamPublisher } from "../../bus/nats/jetStreamPublisher.js";
import { isCasConflict, type KvWrites } from "./storedRecord.js";

/** The header a KV write names the key's expected last revision in (0: none). */
const EXPECTED_REVISION = "Nats-Expected-Last-Subject-Sequence";

/**
 * A bucket's writes as the KV client makes them on the wire — a JetStream append to
 * `$KV.<bucket>.<key>` expecting the key's last revision — through a shared `JetStreamPublisher`
 * instead of the client's request per write (the delivery ledger writes once per event). Reads,
 * and the delete-marker case of `create`, go through `kv`. Only for buckets without a JetStream
 * domain or mirror, as `openBucket` makes them.
 */
export class BucketWrites implements KvWrites {
  readonly #appends: JetStreamPublisher;
  readonly #kv: KV;
  readonly #subjectPrefix: string;

  constructor(appends: JetStreamPublisher, kv: KV, bucket: string) {
    this.#appends = appends;
    this.#kv = kv;
    this.#subjectPrefix = `$KV.${bucket}.`;
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    try {
      return await this.#put(key, value, 0);
    } catch (err) {
      if (!isCasConflict(err)) throw err;
      // A delete or purge marker holds the key's last revision: creating over it names that
      // revision, as the KV client's `create` does. A live value is a real conflict.
      const entry = await this.#kv.get(key);
      if (entry === null || entry.operation === "PUT") throw err;
      return this.#put(key, value, entry.revision);
    }
  }

  update(key: string, value: Uint8Array, revision: number): Promise<number> {
    return this.#put(key, value, revision);
  }

  async #put(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    const hdrs = natsHeaders();
    hdrs.append(EXPECTED_REVISION, String(expectedRevision)); // a fresh block: nothing for `set` to replace
    return (await this.#appends.publish(this.#subjectPrefix + key, value, hdrs)).seq;
  }
}
