import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../log/logger.js";
import type { AgentConfig } from "../config/index.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import { agentEnvironment } from "./agentEnvironment.js";
import { errnoOf } from "../failure/brokerFailure.js";
import { agentStartProblem } from "./agentStartProblem.js";
import { AgentSpawnError } from "./errors.js";
import { LineSplitter } from "./lineSplitter.js";
import type { AgentExitCause } from "../metrics/instruments.js";
import { agentExitCause } from "../metrics/metricLabels.js";

export interface AgentExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface SpawnAgentOptions {
  /** The broker's environment: source of HOME/PATH/USER and `inherit_env`. */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** SIGTERM → SIGKILL delay (default 1.5 s, as OpenAB). */
  readonly killAfterMs?: number;
  /** Told once how the process ended: stopped by `terminate()`, or on its own (see `AgentExitCause`). */
  readonly onExit?: (cause: AgentExitCause) => void;
}

const stderrLineBytes = 64 * 1024;
/** A stderr line as logged: cleaned, one line, at most the bound every logged string has. */
const stderrLogChars = 500;

/**
 * One agent child process in its own process group, so teardown reaches everything it started.
 * stderr lines are logged at warn, sanitized; stdout and stdin belong to the JSON-RPC connection.
 * When the agent exits, its group is killed at once and its stdout ends: nothing it left behind
 * can speak for it.
 */
export class AgentProcess {
  readonly pid: number;
  readonly stdout: Readable;
  readonly stdin: Writable;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<AgentExit>;
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly #killAfterMs: number;
  #exit: AgentExit | undefined;
  #terminating: Promise<AgentExit> | undefined;

  private constructor(child: ChildProcessByStdio<Writable, Readable, Readable>, pid: number, options: SpawnAgentOptions, command: string) {
    this.#child = child;
    this.pid = pid;
    this.stdout = child.stdout;
    this.stdin = child.stdin;
    this.#killAfterMs = options.killAfterMs ?? 1_500;
    const log = options.logger.child({ agentPid: pid });
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        log.info({ code, signal }, "agent exited");
        // Whatever the agent left in its group dies with it, at once.
        this.#signalGroup("SIGKILL");
        setImmediate(() => this.#stopReading(log));
        resolve(this.#exit);
        // Told last, and guarded: a hook that throws must not keep the group alive or the exit unresolved.
        try {
          options.onExit?.(agentExitCause(this.#exit, this.#terminating !== undefined));
        } catch (err) {
          log.warn({ reason: "exit_hook_failed", err }, "agent exit hook failed");
        }
      });
    });
    const splitter = new LineSplitter(stderrLineBytes);
    const logLine = (piece: ReturnType<LineSplitter["push"]>[number]) => {
      const line = piece.kind === "line" ? untrustedText(piece.line, { maxChars: stderrLogChars }) : `<${piece.bytes} bytes dropped>`;
      if (line.trim() !== "") log.warn({ command, line }, "agent stderr");
    };
    child.stderr.on("data", (chunk: Buffer) => splitter.push(chunk).forEach(logLine));
    let flushed = false;
    const flush = () => {
      if (flushed) return;
      flushed = true;
      const last = splitter.end();
      if (last !== undefined) logLine(last);
    };
    child.stderr.once("end", flush);
    child.stderr.once("close", flush);
  }

  /** Starts `[agent] command args` in `working_dir`; rejects with `AgentSpawnError` when it cannot start. */
  static start(agent: AgentConfig, options: SpawnAgentOptions): Promise<AgentProcess> {
    const child = spawn(agent.command, agent.args, {
      cwd: agent.working_dir,
      env: agentEnvironment(agent, options.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // own process group: SIGTERM/SIGKILL reach the agent's children too
    });
    return new Promise((resolve, reject) => {
      child.once("error", (err) => {
        // Node blames the command for a missing cwd too (`spawn <command> ENOENT`): look again to name the key to fix.
        const problem = agentStartProblem(agent, options.env) ?? { configKey: "agent.command", path: agent.command, ...errnoField(err), problem: "could not be started" };
        reject(new AgentSpawnError(agent.command, problem, { cause: err }));
      });
      child.once("spawn", () => {
        options.logger.info({ agentPid: child.pid, command: agent.command }, "agent started");
        resolve(new AgentProcess(child, child.pid as number, options, agent.command));
      });
    });
  }

  get alive(): boolean {
    return this.#exit === undefined;
  }

  /** SIGTERM to the process group, SIGKILL to the group once the agent exits or `killAfterMs` passes. Idempotent. */
  terminate(): Promise<AgentExit> {
    this.#terminating ??= (async () => {
      this.#child.stdin.end();
      this.#signalGroup("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, this.#killAfterMs)))]);
      clearTimeout(timer);
      // Also reaps anything the agent left behind in its group.
      this.#signalGroup("SIGKILL");
      return this.exited;
    })();
    return this.#terminating;
  }

  /**
   * Ends the agent's stdout and stderr once the bytes it wrote before it died have been read. libuv runs child
   * exits after the I/O of the same poll round, so those bytes have been read when the exit is
   * seen; anything read later comes from a process that outlived the agent (one that escaped the
   * group with setsid keeps the pipe open forever) and must never become part of a turn.
   */
  #stopReading(log: Logger): void {
    for (const [name, stream] of [
      ["stdout", this.#child.stdout],
      ["stderr", this.#child.stderr],
    ] as const) {
      if (stream.readableEnded || stream.destroyed) continue;
      log.debug({ reason: "agent_exited", stream: name }, "agent output closed after exit");
      stream.destroy();
    }
  }

  #signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

function errnoField(err: unknown): { errno?: string } {
  const errno = errnoOf(err);
  return errno === undefined ? {} : { errno };
}
