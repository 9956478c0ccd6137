/** What a CLI command may touch of the outside world, so commands stay testable in process. */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Resolves with the signal's name when the process is asked to stop (SIGINT, SIGTERM). */
  readonly shutdownRequested: () => Promise<string>;
}

/** A mistake the user can fix on the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
