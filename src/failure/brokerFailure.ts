/**
 * What a user is told when a turn fails on the broker's side (not the agent's): one short, stable
 * phrase per code. These codes and phrases are the whole vocabulary; the detail an operator needs
 * (the config key, the path, the errno) goes to the log, never to the chat.
 */
export const brokerFailurePhrases = {
  agent_unavailable: "The agent could not be started",
  session_store_unavailable: "Saved conversations could not be read or written",
  internal_error: "Something went wrong on the server",
} as const;

export type BrokerFailureCode = keyof typeof brokerFailurePhrases;

/** The config key an operator fixes for a broker-side failure. */
export type FailureConfigKey = "agent.command" | "agent.working_dir" | "pool.state_dir";

/** `The agent could not be started (agent_unavailable)`: what follows `⚠️ ` in the chat. */
export function brokerFailureText(code: BrokerFailureCode): string {
  return `${brokerFailurePhrases[code]} (${code})`;
}

/** Where an operator looks: the key, the path and the errno (each absent when unknown). */
export interface FailureDetail {
  readonly configKey?: FailureConfigKey;
  readonly path?: string;
  readonly errno?: string;
}

/**
 * A turn failed on the broker's side. The message is the user-facing phrase and code, so it is
 * safe wherever it is shown; `configKey`, `path`, `errno` and `cause` are for the log (pino
 * serializes a typed error's own fields under `err`).
 */
export class BrokerFailureError extends Error {
  override readonly name: string = "BrokerFailureError";
  readonly configKey: FailureConfigKey | undefined;
  readonly path: string | undefined;
  readonly errno: string | undefined;

  constructor(
    readonly code: BrokerFailureCode,
    detail: FailureDetail = {},
    options?: ErrorOptions,
  ) {
    super(brokerFailureText(code), options);
    this.configKey = detail.configKey;
    this.path = detail.path;
    this.errno = detail.errno;
  }
}

/** The errno name (`ENOENT`, `ENOTDIR`, …) of a Node system error, if `err` is one. */
export function errnoOf(err: unknown): string | undefined {
  if (!(err instanceof Error) || !("code" in err)) return undefined;
  return typeof err.code === "string" && /^E[A-Z0-9]+$/.test(err.code) ? err.code : undefined;
}

/** Something in the config that stops the broker from doing its work, found on the file system. */
export interface StartProblem {
  readonly configKey: FailureConfigKey;
  /** The path (or command name) the problem is about. */
  readonly path: string;
  readonly errno?: string;
  /** What is wrong with it, completing `<path> …`: `does not exist`, `is not a directory`, … */
  readonly problem: string;
}

/** `/nope does not exist`: what follows `agent.working_dir: ` in the one line an operator acts on. */
export function startProblemMessage(problem: StartProblem): string {
  return `${problem.path} ${problem.problem}`;
}
