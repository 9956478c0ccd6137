import type { NatsConnection } from "@nats-io/transport-node";
import { openBucket } from "../../bus/nats/buckets.js";
import { JetStreamPublisher } from "../../bus/nats/jetStreamPublisher.js";
import { JETSTREAM_TIMEOUT_MS } from "../../bus/nats/openJetStream.js";
import type { Config } from "../../config/schema.js";
import { subjects } from "../../wire/index.js";
import type { DedupeStore } from "../dedupeStore.js";
import type { DeliveryLedger } from "../deliveryLedger.js";
import type { SessionStore } from "../sessionStore.js";
import type { TriageStore } from "../triageStore.js";
import { BucketWrites } from "./bucketWrites.js";
import { KvDedupeStore } from "./kvDedupeStore.js";
import { KvDeliveryLedger } from "./kvDeliveryLedger.js";
import { KvSessionStore } from "./kvSessionStore.js";
import { KvRateBuckets } from "./kvRateBuckets.js";
import { KvTriageStore } from "./kvTriageStore.js";
import { KvHistoryStore, kvHistoryBudget } from "./kvHistoryStore.js";
import type { HistoryStore } from "../historyStore.js";
import type { RateBuckets } from "../../../operators/delivery/flow/rateBuckets.js";

/** The state every worker shares. */
export interface SharedState {
  readonly triage: TriageStore;
  readonly sessions: SessionStore;
  readonly dedupe: DedupeStore;
  readonly ledger: DeliveryLedger;
  /** The per-bot rate buckets (`[rate_limits]`), one key per platform. */
  readonly rates: RateBuckets;
  /** Group history per conversation; only with `[inbound] history_limit` > 0. */
  readonly history?: HistoryStore;
}

/** The config keys shared state depends on (a resolved `Config` fits). */
export interface SharedStateConfig {
  readonly bus: Pick<Config["bus"], "prefix" | "state_ttl_secs">;
  /** `history_limit` > 0 opens the history bucket (absent: 0). */
  readonly inbound: Pick<Config["inbound"], "dedupe_ttl_secs"> & { readonly history_limit?: number };
}

/**
 * Opens (creating when absent) the shared-state buckets of the deployment's `[bus] prefix`.
 * Rejects with BusSetupError when a bucket exists with another TTL or history.
 *
 * - triage, sessions: no bucket TTL. Triage state holds daily counts and cooldowns whose lifetime
 *   the sweep decides from the state itself (the pool's session TTL), and a bucket TTL counts from
 *   the last write, which a conversation whose evaluation changed nothing does not get. Session
 *   ids must survive any idle time for `session/load`.
 * - dedupe, ledger: `state_ttl_secs`, a garbage collector for per-event records (dedupe freshness
 *   is decided by the record's `at` against `[inbound] dedupe_ttl_secs`).
 * - rates: no TTL; one small key per platform, rewritten on every send it counts.
 * - history (only with `[inbound] history_limit` > 0): `state_ttl_secs`, which collects the
 *   history of a conversation the bot never answered.
 *
 * The compare-and-set writes of triage, dedupe, ledger and rates share one `JetStreamPublisher` on `nc`
 * (the ledger writes once per event); it lives as long as the connection.
 */
export async function openSharedState(nc: NatsConnection, config: SharedStateConfig): Promise<SharedState> {
  const { buckets } = subjects(config.bus.prefix);
  const stateTtlMs = config.bus.state_ttl_secs * 1000;
  const [triage, sessions, dedupe, ledger, rates] = await Promise.all([
    openBucket(nc, buckets.triage, { ttlMs: 0 }),
    openBucket(nc, buckets.sessions, { ttlMs: 0 }),
    openBucket(nc, buckets.dedupe, { ttlMs: stateTtlMs }),
    openBucket(nc, buckets.ledger, { ttlMs: stateTtlMs }),
    openBucket(nc, buckets.rates, { ttlMs: 0 }),
  ]);
  const history = (config.inbound.history_limit ?? 0) > 0 ? await openBucket(nc, buckets.history, { ttlMs: stateTtlMs }) : undefined;
  const appends = new JetStreamPublisher(nc, { timeoutMs: JETSTREAM_TIMEOUT_MS });
  return {
    triage: new KvTriageStore(triage, { writes: new BucketWrites(appends, triage, buckets.triage) }),
    sessions: new KvSessionStore(sessions),
    dedupe: new KvDedupeStore(dedupe, { ttlMs: config.inbound.dedupe_ttl_secs * 1000, writes: new BucketWrites(appends, dedupe, buckets.dedupe) }),
    ledger: new KvDeliveryLedger(ledger, { writes: new BucketWrites(appends, ledger, buckets.ledger) }),
    rates: new KvRateBuckets(rates, { writes: new BucketWrites(appends, rates, buckets.rates) }),
    ...(history === undefined ? {} : { history: new KvHistoryStore(history, { writes: new BucketWrites(appends, history, buckets.history), maxBytes: kvHistoryBudget(nc.info?.max_payload) }) }),
  };
}
