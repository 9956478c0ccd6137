import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";
import { Objm, setSha256Backend, StorageType, type ObjectStore } from "@nats-io/obj";
import { millis, nanos } from "@nats-io/transport-node";
import { FileStoreError } from "../files/fileStore.js";

/** The object store bucket the NATS file store keeps its files in, opened by `openFileBucket`. */
export interface FileBucket {
  readonly name: string;
  readonly store: ObjectStore;
  /** Removes the message at `seq` from the bucket's stream; one already gone is no error. */
  removeMessage(seq: number): Promise<void>;
}

/**
 * Opens the JetStream object store bucket `name` (file storage, entries older than `maxAgeMs`
 * dropped by the server), creating it when absent. A bucket that exists with another max age is a
 * `FileStoreError` naming both, never silently reconfigured: another deployment may depend on it.
 */
export async function openFileBucket(js: JetStreamClient, name: string, maxAgeMs: number): Promise<FileBucket> {
  // The client hashes every chunk it puts and gets; its default is pure JS, several times slower on Node.
  setSha256Backend("native");
  const store = await new Objm(js).create(name, { storage: StorageType.File, ttl: nanos(maxAgeMs) });
  const status = await store.status();
  const stream = status.streamInfo.config.name;
  const haveMs = millis(status.ttl);
  if (haveMs !== maxAgeMs) {
    throw new FileStoreError(
      `object store bucket "${name}" exists with max age ${haveMs} ms; this deployment needs ${maxAgeMs} ms. ` +
        `Delete its stream (nats stream rm ${stream}) once no file is in flight, or use another [bus] prefix`,
    );
  }
  const jsm = await js.jetstreamManager();
  return {
    name,
    store,
    async removeMessage(seq) {
      try {
        await jsm.streams.deleteMessage(stream, seq, false);
      } catch (err) {
        if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return;
        throw err;
      }
    },
  };
}
