import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built binary, exactly as `npm install` leaves it (test/globalSetup.ts builds it). */
export const binPath = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface SpawnOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

function childEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  // LOG_LEVEL from the developer's shell must not change what the tests see.
  const { LOG_LEVEL: _ignored, ...base } = process.env;
  return { ...base, ...env };
}

/** Spawns `turnstream` as a real process. */
export function spawnTurnstream(args: readonly string[], options: SpawnOptions = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [binPath, ...args], { env: childEnv(options.env), cwd: options.cwd });
}

/** Resolves once the process has exited, with everything it printed. */
export function finished(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs `turnstream` to completion. */
export function runTurnstream(args: readonly string[], options: SpawnOptions = {}): Promise<CliResult> {
  return finished(spawnTurnstream(args, options));
}

/** Resolves when a line of the child's stdout satisfies `match`. */
export function waitForLine(child: ChildProcessWithoutNullStreams, match: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer | string) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      const hit = lines.find(match);
      if (hit !== undefined) {
        child.stdout.off("data", onData);
        resolve(hit);
      }
    };
    child.stdout.on("data", onData);
    child.once("close", (code) => reject(new Error(`process exited (${code}) before the expected line`)));
  });
}

/** A spawned `turnstream` whose stdout is read as JSON log lines as they come. */
export interface LoggedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line so far, parsed (a line that is not JSON becomes `{ msg: line }`). */
  readonly logs: Record<string, unknown>[];
  /** Resolves when the process exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Spawns `turnstream` (as `spawnTurnstream`) and collects its log lines and stderr. */
export function spawnLogged(args: readonly string[], options: SpawnOptions = {}): LoggedProcess {
  const child = spawnTurnstream(args, options);
  const logs: Record<string, unknown>[] = [];
  let buffer = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // "close", not "exit": the exit status can arrive before the last of stdout has been read, and
  // callers assert on the log lines as soon as the process is gone.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  return { child, logs, exited, stderr: () => stderr };
}

