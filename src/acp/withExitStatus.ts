import type { AgentProcess } from "./agentProcess.js";
import { AgentExitedError } from "./errors.js";

/** Replaces a bare `AgentExitedError` with one that carries the exit code, once the process reports it. */
export async function withExitStatus(err: unknown, agentProcess: AgentProcess): Promise<unknown> {
  if (!(err instanceof AgentExitedError) || err.exitCode !== null || err.signal !== null) return err;
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([agentProcess.exited, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 500)))]);
  clearTimeout(timer);
  return exit === undefined ? err : new AgentExitedError(exit.code, exit.signal, { cause: err });
}
