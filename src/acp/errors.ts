import { BrokerFailureError, type StartProblem } from "../failure/brokerFailure.js";

/** The agent answered a request with a JSON-RPC error. */
export class AcpRequestError extends Error {
  override readonly name = "AcpRequestError";
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
    options?: ErrorOptions,
  ) {
    super(`JSON-RPC error ${code}: ${rpcMessage}${detail(data)}`, options);
  }
}

/** `— <data.message>` when the error carries one, as OpenAB displays it. */
function detail(data: unknown): string {
  if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string") {
    return ` — ${data.message}`;
  }
  return "";
}

/** A request got no answer within its per-method timeout. */
export class AcpTimeoutError extends Error {
  override readonly name = "AcpTimeoutError";
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`agent did not answer ${method} within ${timeoutMs} ms`, options);
  }
}

/** The agent's stdout ended (it exited or closed it) while a request or turn was waiting. */
export class AgentExitedError extends Error {
  override readonly name = "AgentExitedError";
  constructor(
    readonly exitCode: number | null = null,
    readonly signal: string | null = null,
    options?: ErrorOptions,
  ) {
    super("Agent process exited unexpectedly", options);
  }
}

/** The liveness check found the agent process gone while a turn was running. */
export class AgentDiedError extends Error {
  override readonly name = "AgentDiedError";
  constructor(options?: ErrorOptions) {
    super("Agent process died", options);
  }
}

/** A prompt ran past `[pool] prompt_hard_timeout_secs`. */
export class HardTimeoutError extends Error {
  override readonly name = "HardTimeoutError";
  constructor(
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`Agent exceeded hard timeout (${Math.round(timeoutMs / 1000)}s)`, options);
  }
}

/**
 * The agent command could not be started: not found, not executable, or a working dir that is
 * missing. The message is the user-facing phrase (`agent_unavailable`); `problem` says which key
 * to fix and why, for the log.
 */
export class AgentSpawnError extends BrokerFailureError {
  override readonly name = "AgentSpawnError";
  /** `is not on the agent's PATH`, `does not exist`, … (completes `<path> …`). */
  readonly problem: string;
  constructor(
    readonly command: string,
    problem: StartProblem,
    options?: ErrorOptions,
  ) {
    super("agent_unavailable", problem, options);
    this.problem = problem.problem;
  }
}

/**
 * A turn waited `[pool] prompt_hard_timeout_secs` for an agent session and none came free. The
 * message is what the user sees (after `⚠️ `), so it stays short.
 */
export class PoolWaitTimeoutError extends Error {
  override readonly name = "PoolWaitTimeoutError";
  constructor(
    readonly maxSessions: number,
    readonly waitedMs: number,
    options?: ErrorOptions,
  ) {
    super(`every agent session stayed busy for ${Math.round(waitedMs / 1000)}s; please try again`, options);
  }
}

/** A turn's wait for an agent session was called off (`/cancel`, an interrupt). */
export class SessionWaitCancelledError extends Error {
  override readonly name = "SessionWaitCancelledError";
  constructor(options?: ErrorOptions) {
    super("the wait for an agent session was cancelled", options);
  }
}

/** The session pool was closed (shutdown) while a turn waited for, or asked for, a session. */
export class PoolClosedError extends Error {
  override readonly name = "PoolClosedError";
  constructor(options?: ErrorOptions) {
    super("session pool is closed", options);
  }
}

/**
 * `[pool] preload_persisted_sessions` could not restore the saved sessions at start-up, so the
 * broker does not start (as upstream: too many for `max_sessions`, the ids could not be read, the
 * agent cannot load sessions, or one failed to load). `reason` is stable, for the log.
 */
export class PreloadError extends Error {
  override readonly name = "PreloadError";
  constructor(
    readonly reason: "too_many_sessions" | "store_unreadable" | "load_unsupported" | "load_failed",
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`pool.preload_persisted_sessions: cannot restore the saved sessions: ${detail}`, options);
  }
}

/** The agent answered in a shape ACP does not allow (a missing sessionId, an unsupported protocol version). */
export class AcpProtocolError extends Error {
  override readonly name = "AcpProtocolError";
  constructor(
    readonly method: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`agent answered ${method} with ${detail}`, options);
  }
}
