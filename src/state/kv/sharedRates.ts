import type { NatsConnection } from "@nats-io/transport-node";
import { openBucket } from "../../bus/nats/buckets.js";
import { JetStreamPublisher } from "../../bus/nats/jetStreamPublisher.js";
import { JETSTREAM_TIMEOUT_MS } from "../../bus/nats/openJetStream.js";
import type { Config } from "../../config/schema.js";
import { subjects } from "../../wire/index.js";
import type { RateBuckets } from "../../../operators/delivery/flow/rateBuckets.js";
import { BucketWrites } from "./bucketWrites.js";
import { KvRateBuckets } from "./kvRateBuckets.js";

/**
 * The deployment's per-bot rate buckets alone (`<prefix>_rates`, as `openSharedState` opens them):
 * an edge keeps no other state, but what it sends itself (the trust echo) counts against the same
 * per-bot limits as the workers' sends.
 */
export async function openSharedRates(nc: NatsConnection, config: { readonly bus: Pick<Config["bus"], "prefix"> }): Promise<RateBuckets> {
  const { buckets } = subjects(config.bus.prefix);
  const rates = await openBucket(nc, buckets.rates, { ttlMs: 0 });
  return new KvRateBuckets(rates, { writes: new BucketWrites(new JetStreamPublisher(nc, { timeoutMs: JETSTREAM_TIMEOUT_MS }), rates, buckets.rates) });
}
