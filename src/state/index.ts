// State that outlives a turn: ports, their in-memory implementations, and the errors they share.
// The NATS KV implementations are behind `./kv/index.js`.
export { StateConflictError, StateStoreError, type StateStoreName } from "./errors.js";
export { FileSessionStore, MemorySessionStore, type SessionStore } from "./sessionStore.js";
export { MemoryTriageStore, type TriageEntry, type TriageStore } from "./triageStore.js";
export { MemoryDedupeStore, type Claim, type DedupeStore } from "./dedupeStore.js";
export { MemoryDeliveryLedger, type DeliveryLedger, type LedgerRecord } from "./deliveryLedger.js";
export { MemoryHistoryStore, type HistoryStore } from "./historyStore.js";
