import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { BusSetupError } from "../errors.js";

export interface BucketOptions {
  /** Entry lifetime (the bucket stream's `max_age`); 0 or absent: entries never expire. */
  readonly ttlMs?: number;
  /** Revisions kept per key (default 1). */
  readonly history?: number;
}

/**
 * Opens the KV bucket `name`, creating it when absent. A bucket that exists with another TTL or
 * history is a start-up error naming both values, never silently reconfigured: another deployment
 * (or an older config) may depend on it.
 */
export async function openBucket(nc: NatsConnection, name: string, options: BucketOptions = {}): Promise<KV> {
  const ttlMs = options.ttlMs ?? 0;
  const history = options.history ?? 1;
  const jsm = await jetstreamManager(nc);
  const existing = await jsm.streams.info(`KV_${name}`).catch((err: unknown) => {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw new BusSetupError(`cannot read KV bucket "${name}": ${describe(err)}`, { cause: err });
  });
  if (existing !== undefined) {
    const existingTtlMs = Math.round(existing.config.max_age / 1_000_000);
    const existingHistory = existing.config.max_msgs_per_subject;
    if (existingTtlMs !== Math.round(ttlMs) || existingHistory !== history) {
      throw new BusSetupError(
        `KV bucket "${name}" exists with ttl ${existingTtlMs} ms and history ${existingHistory}; this deployment needs ttl ${Math.round(ttlMs)} ms and history ${history}. ` +
          `Delete the bucket (nats kv del ${name}) or use another [bus] prefix`,
      );
    }
  }
  try {
    return await new Kvm(nc).create(name, { history, ...(ttlMs > 0 ? { ttl: Math.round(ttlMs) } : {}) });
  } catch (err) {
    throw new BusSetupError(`cannot open KV bucket "${name}": ${describe(err)}`, { cause: err });
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
