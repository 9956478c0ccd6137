// The public surface of `turnstream`: create and start a broker, extend its pipeline, choose a bus.
export { createBroker } from "./broker/createBroker.js";
export type { BrokerOptions } from "./broker/brokerOptions.js";
export { connectBroker } from "./broker/connectBroker.js";
export { RECOVERED_REPLY_MARKER } from "./turn/turnLedger.js";
export { Broker, type QueuedEvent, type Role, type SettledTurn, type StopResult } from "./broker/broker.js";
export { BrokerStoppedError } from "./broker/errors.js";
export { NoAgentError } from "./turn/errors.js";
export type { Turn, TurnContext, TurnFact, TurnHandler } from "./turn/turn.js";
export { MetricsListenError } from "./metrics/errors.js";
export type { BrokerPhase, Missing, Readiness } from "./metrics/readiness.js";
export {
  Pipeline,
  stageNames,
  type StageName,
  type StageOperator,
  type StageValues,
} from "./pipeline/pipeline.js";
export { StageError } from "./pipeline/errors.js";
export type { Send } from "./pipeline/send.js";
export { SendError, subjects, type SendReply, type Subjects } from "./wire/index.js";
export {
  ConfigError,
  defaultConfig,
  loadConfigFile,
  maskSecrets,
  parseConfigText,
  resolveConfig,
  type Config,
  type ConfigInput,
  type ConfigProblem,
} from "./config/index.js";
export {
  MemoryBus,
  NatsBus,
  BusClosedError,
  BusSetupError,
  ConsumerLostError,
  BusTimeoutError,
  ConsumerConflictError,
  InvalidSubjectError,
  NoRespondersError,
  PayloadTooLargeError,
  type Bus,
  type BusMessage,
  type DurableMessage,
  type NatsBusOptions,
} from "./bus/index.js";
export { createLogger, type Logger, type LogLevel } from "./log/logger.js";
export {
  AcpClient,
  AcpProtocolError,
  AcpRequestError,
  AcpTimeoutError,
  AgentDiedError,
  AgentExitedError,
  AgentSpawnError,
  HardTimeoutError,
  PoolClosedError,
  PoolWaitTimeoutError,
  SessionWaitCancelledError,
  SessionPool,
  createSessionPool,
  type ContentBlock,
  type PooledSession,
} from "./acp/index.js";
export {
  FileSessionStore,
  MemoryDedupeStore,
  MemoryDeliveryLedger,
  MemorySessionStore,
  MemoryTriageStore,
  StateConflictError,
  StateStoreError,
  type Claim,
  type DedupeStore,
  type DeliveryLedger,
  type LedgerRecord,
  type SessionStore,
  type TriageStore,
} from "./state/index.js";
export { KvDedupeStore, KvDeliveryLedger, KvSessionStore, KvTriageStore, openSharedState, type SharedState } from "./state/kv/index.js";
export { PartitionLeases, type PartitionLeasesOptions } from "./scale/index.js";
