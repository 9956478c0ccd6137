import { InboundDedupe } from "../../operators/ingress/inboundDedupe.js";
import type { TriageStore } from "../../operators/triage/triageStore.js";
import { MemoryRateBuckets, type RateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import type { Config } from "../config/index.js";
import { MemoryDedupeStore, type DedupeStore } from "../state/dedupeStore.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import { MemoryHistoryStore, type HistoryStore } from "../state/historyStore.js";
import type { SessionStore } from "../state/sessionStore.js";
import { MemoryTriageStore } from "../state/triageStore.js";

export interface BrokerState {
  readonly triage: TriageStore;
  /** Absent: `<state_dir>/sessions.json`. */
  readonly sessions?: SessionStore;
  readonly dedupe: DedupeStore;
  /**
   * On the embedded bus, a file beside its turn-queue journal (`FileDeliveryLedger`): an event the
   * journal brings back after a crash may have had its turn. Absent where nothing outlives the
   * process (no journal): no event can come back after its turn completed there.
   */
  readonly ledger?: DeliveryLedger;
  /** The per-bot rate buckets (`[rate_limits]`): this process's on the embedded bus, the deployment's on NATS. */
  readonly rates: RateBuckets;
  /** Group history (`[inbound] history_limit` > 0): this process's on the embedded bus, the deployment's on NATS. */
  readonly history?: HistoryStore;
}

/** One process's state, for the embedded bus; `ledger` when its turn queue is journaled. */
export function memoryState(config: Config, ledger?: DeliveryLedger): BrokerState {
  return {
    ...(ledger === undefined ? {} : { ledger }),
    triage: new MemoryTriageStore(),
    rates: new MemoryRateBuckets(),
    dedupe: new MemoryDedupeStore(new InboundDedupe({ ttlMs: config.inbound.dedupe_ttl_secs * 1000, max: config.inbound.dedupe_max })),
    ...(config.inbound.history_limit > 0 ? { history: new MemoryHistoryStore() } : {}),
  };
}
