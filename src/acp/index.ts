// The ACP client side: agent processes, JSON-RPC over stdio, prompt turns as Observables, the session pool.
export { AcpClient, type AcpClientOptions, type ContentBlock, type SessionInfo } from "./client.js";
export type { PromptOptions } from "./promptTurn.js";
export { SessionPool, type PooledSession, type SessionPoolOptions } from "./pool/pool.js";
export { createSessionPool } from "./pool/createSessionPool.js";
export { choosePermission, type PermissionOutcome } from "./permission.js";
export {
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
} from "./errors.js";
