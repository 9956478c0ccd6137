// Shared state in NATS KV: what workers hold in common. Everything not listed here is internal.
export { openSharedState, type SharedState, type SharedStateConfig } from "./sharedState.js";
export { KvTriageStore } from "./kvTriageStore.js";
export { KvSessionStore } from "./kvSessionStore.js";
export { KvDedupeStore } from "./kvDedupeStore.js";
export { KvDeliveryLedger } from "./kvDeliveryLedger.js";
export { kvKey } from "./kvKey.js";
