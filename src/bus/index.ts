export type {
  Bus,
  BusMessage,
  ConsumeOptions,
  DurableMessage,
  Headers,
  PersistAck,
  PersistOptions,
  PublishOptions,
  RequestOptions,
  SubscribeOptions,
} from "./bus.js";
export {
  BusClosedError,
  BusSetupError,
  BusTimeoutError,
  ConsumerConflictError,
  InvalidSubjectError,
  JournalOpenError,
  JournalWriteError,
  NoRespondersError,
  PayloadTooLargeError,
} from "./errors.js";
export { MemoryBus, type MemoryBusJournal, type MemoryBusOptions } from "./memoryBus.js";
export { subjectMatches, validateSubject, type SubjectRules } from "./subjectMatch.js";
export { NatsBus, type NatsBusOptions } from "./nats/natsBus.js";
export { natsConnectOptions } from "./nats/connect.js";
export type { BusConnectionStatus } from "./nats/connectionStatus.js";
export { ConsumerLostError } from "./nats/consumerLostError.js";
export { FileStoreError, StoredFileMissingError, type FileStore } from "./files/fileStore.js";
export { MemoryFileStore } from "./files/memoryFileStore.js";
