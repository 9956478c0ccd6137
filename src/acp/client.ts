import { Observable, type Subscriber } from "rxjs";
import { z } from "zod";
import type { Logger } from "../log/logger.js";
import type { AgentExitCause } from "../metrics/instruments.js";
import type { AgentEvent, TokenUsage } from "../../operators/delivery/agentEvent.js";
import type { Redact } from "../../operators/delivery/text/redactSecrets.js";
import type { ContentBlock } from "../../operators/dispatch/contentBlock.js";
import { isPlainText, untrustedName } from "../../operators/ingress/untrustedText.js";
import type { AgentConfig } from "../config/index.js";
import { AgentProcess } from "./agentProcess.js";
import { agentRequestAnswerer } from "./agentRequests.js";
import { JsonRpcConnection } from "./connection.js";
import type { McpCapabilities, McpServerEntry } from "./mcpServers.js";
import { AcpProtocolError, AgentDiedError, AgentExitedError, HardTimeoutError } from "./errors.js";
import { rpcErrorCodes, RpcError } from "./jsonRpc.js";
import { classifyUpdate, sessionUpdateParams } from "./sessionUpdate.js";
import { SessionTurns } from "./pool/sessionTurns.js";

export type { ContentBlock };

export interface AcpClientOptions {
  readonly agent: AgentConfig;
  /** The broker's environment (for the agent's HOME/PATH/USER and `inherit_env`). */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly clientVersion?: string;
  /** Per-method request timeouts (defaults: session/new 120 s, others 30 s). */
  readonly timeouts?: { readonly sessionNewMs?: number; readonly requestMs?: number };
  /** SIGTERM → SIGKILL delay on close (default 1.5 s). */
  readonly killAfterMs?: number;
  /** Told once how the agent process ended (counted by `turnstream_agent_exits_total`). */
  readonly onAgentExit?: (cause: AgentExitCause) => void;
  /**
   * Masks secrets in what the agent writes that users are shown besides its reply: tool titles and
   * error messages (default: the known token shapes; the broker adds every secret it holds).
   */
  readonly redact?: Redact;
}

export interface PromptOptions {
  /** `[pool] prompt_hard_timeout_secs`: past it the turn is cancelled. */
  readonly hardTimeoutMs: number;
  /** `[pool] hung_grace_secs`: how long a cancelled hung turn may take to answer before the agent is killed. */
  readonly hungGraceMs: number;
  /** `[pool] liveness_check_secs`: how often a running turn checks that the agent is alive. */
  readonly livenessMs: number;
}

export interface SessionInfo {
  readonly sessionId: string;
  readonly configOptions: readonly unknown[];
}

// Read leniently: a malformed `mcpCapabilities` only means the agent gets no HTTP server offered.
const mcpCapabilities = z.looseObject({ http: z.boolean().optional() }).nullish().catch(undefined);
const initializeResult = z.looseObject({
  protocolVersion: z.number(),
  agentCapabilities: z
    .looseObject({ loadSession: z.boolean().optional(), mcpCapabilities: mcpCapabilities })
    .optional(),
  agentInfo: z.looseObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
});
// The session id is logged and sent back as it is, so it must be plain text already (no control
// characters, at most 500 chars): an agent that picks another cannot be held to a session.
const newSessionResult = z.looseObject({ sessionId: z.string().min(1).refine((id) => isPlainText(id)), configOptions: z.array(z.unknown()).optional() });
const promptResult = z.looseObject({
  stopReason: z.string(),
  usage: z.looseObject({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), totalTokens: z.number().optional() }).nullish(),
});

/** Distinct refused methods remembered (each warned about once). */
/**
 * The client side of ACP v1 for one agent process: initialize, sessions, prompt turns as
 * Observables of typed events in wire order, and OpenAB's answers to the agent's requests
 * (permission auto-answer; -32601 for fs/terminal/anything unadvertised).
 */
export class AcpClient {
  readonly process: AgentProcess;
  readonly agentName: string;
  readonly supportsLoadSession: boolean;
  readonly mcpCapabilities: McpCapabilities;
  readonly #connection: JsonRpcConnection;
  readonly #logger: Logger;
  readonly #sessionNewMs: number;
  readonly #requestMs: number;
  /** Which turn owns each session's updates. */
  readonly #turns = new SessionTurns<Subscriber<AgentEvent>>();
  readonly #replaying = new Set<string>();
  /** Answers the agent's requests (permissions by `[agent] permission_mode`; -32601 for the rest). */
  readonly #answerAgent: (method: string, params: unknown) => unknown;
  readonly #redact: Redact | undefined;

  private constructor(process: AgentProcess, connection: JsonRpcConnection, init: z.infer<typeof initializeResult>, options: AcpClientOptions, logger: Logger) {
    this.process = process;
    this.#connection = connection;
    this.#logger = logger;
    this.#sessionNewMs = options.timeouts?.sessionNewMs ?? 120_000;
    this.#requestMs = options.timeouts?.requestMs ?? 30_000;
    this.#redact = options.redact;
    const reportedName = init.agentInfo?.name;
    this.agentName = reportedName === undefined ? options.agent.command : untrustedName(reportedName);
    this.supportsLoadSession = init.agentCapabilities?.loadSession === true;
    this.mcpCapabilities = { http: init.agentCapabilities?.mcpCapabilities?.http === true };
    this.#answerAgent = agentRequestAnswerer({
      // Absent in a hand-built AgentConfig: OpenAB's rule.
      permissionMode: options.agent.permission_mode ?? "allow_always",
      isCancelled: (sessionId) => this.#turns.isCancelled(sessionId),
      logger,
    });
  }

  /** Spawns the agent and runs `initialize`. On failure the process is terminated before rejecting. */
  static async start(options: AcpClientOptions): Promise<AcpClient> {
    const agentProcess = await AgentProcess.start(options.agent, {
      env: options.env,
      logger: options.logger,
      killAfterMs: options.killAfterMs,
      ...(options.onAgentExit === undefined ? {} : { onExit: options.onAgentExit }),
    });
    const logger = options.logger.child({ agentPid: agentProcess.pid });
    let client: AcpClient | undefined;
    const connection = new JsonRpcConnection({
      input: agentProcess.stdout,
      output: agentProcess.stdin,
      logger,
      ...(options.redact === undefined ? {} : { redact: options.redact }),
      onRequest: (method, params) => {
        if (client === undefined) throw new RpcError(rpcErrorCodes.methodNotFound, "Method not found", { method });
        return client.#answerAgent(method, params);
      },
    });
    try {
      const raw = await connection.request(
        "initialize",
        {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "turnstream", version: options.clientVersion ?? "0.0.0" },
        },
        options.timeouts?.requestMs ?? 30_000,
      );
      const init = initializeResult.safeParse(raw);
      if (!init.success) throw new AcpProtocolError("initialize", "a malformed result");
      if (init.data.protocolVersion !== 1) throw new AcpProtocolError("initialize", `protocol version ${init.data.protocolVersion}`);
      client = new AcpClient(agentProcess, connection, init.data, options, logger);
      const ready = client;
      connection.notifications.subscribe((notification) => ready.#route(notification.method, notification.params));
      logger.info({ agent: client.agentName, loadSession: client.supportsLoadSession }, "agent initialized");
      return client;
    } catch (err) {
      connection.close();
      await agentProcess.terminate();
      throw await withExitStatus(err, agentProcess);
    }
  }

  get alive(): boolean {
    return this.process.alive && !this.#connection.isClosed;
  }

  /** `session/new`, offering `mcpServers` (none by default). */
  async newSession(cwd: string, mcpServers: readonly McpServerEntry[] = []): Promise<SessionInfo> {
    const raw = await this.#request("session/new", { cwd, mcpServers }, this.#sessionNewMs);
    const parsed = newSessionResult.safeParse(raw);
    if (!parsed.success) throw new AcpProtocolError("session/new", "no usable sessionId");
    return { sessionId: parsed.data.sessionId, configOptions: parsed.data.configOptions ?? [] };
  }

  /**
   * `session/load`, offering `mcpServers` (none by default); the history the agent replays
   * meanwhile is not part of any turn and is discarded.
   */
  async loadSession(sessionId: string, cwd: string, mcpServers: readonly McpServerEntry[] = []): Promise<void> {
    this.#replaying.add(sessionId);
    try {
      await this.#request("session/load", { sessionId, cwd, mcpServers }, this.#sessionNewMs);
    } finally {
      this.#replaying.delete(sessionId);
    }
  }

  setConfigOption(sessionId: string, configId: string, value: string): Promise<unknown> {
    return this.#request("session/set_config_option", { sessionId, configId, value }, this.#requestMs);
  }

  /** Sends the `session/cancel` notification; the running turn ends when the agent answers its prompt. */
  cancel(sessionId: string): void {
    this.#turns.markCancelled(sessionId);
    this.#connection.notify("session/cancel", { sessionId });
  }

  /**
   * One prompt turn: every `session/update` of the session as a typed event in wire order, then
   * `end` with the stop reason and usage, then completion. Errors with `AcpRequestError` (the
   * agent answered with an error), `AgentExitedError`/`AgentDiedError` (the process went away) or
   * `HardTimeoutError` (cancelled after `hardTimeoutMs`; killed if it did not answer within
   * `hungGraceMs`). Unsubscribing early cancels the turn.
   */
  prompt(sessionId: string, prompt: readonly ContentBlock[], options: PromptOptions): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const turn = this.#turns.open(sessionId, subscriber);
      if (turn === undefined) {
        subscriber.error(new Error(`a turn is already running on session ${sessionId}`));
        return;
      }
      let settled = false;
      let answered = false;
      let timedOut = false;
      const timers: NodeJS.Timeout[] = [];
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        timers.forEach(clearTimeout); // clears the liveness interval too (one Timeout class in Node)
        this.#turns.detach(turn); // from here on, the session's updates are no longer this turn's
        return true;
      };
      // The agent answered the prompt (or never will: the connection closed). Runs synchronously
      // when the answer is read, so an update in the same read after it is already late.
      const answer = () => {
        if (answered) return;
        answered = true;
        this.#turns.answered(turn);
      };
      const fail = (err: unknown) => {
        if (settle()) void withExitStatus(err, this.process).then((e) => subscriber.error(e));
      };

      this.#connection.request("session/prompt", { sessionId, prompt }, undefined, answer).then((raw) => {
        if (timedOut) return fail(new HardTimeoutError(options.hardTimeoutMs));
        const result = promptResult.safeParse(raw);
        if (!result.success) return fail(new AcpProtocolError("session/prompt", "a malformed result"));
        if (!settle()) return;
        const usage = result.data.usage ?? undefined;
        subscriber.next(usage === undefined ? { type: "end", stopReason: result.data.stopReason } : { type: "end", stopReason: result.data.stopReason, usage: usage as TokenUsage });
        subscriber.complete();
      }, (err: unknown) => {
        answer();
        fail(err);
      });

      timers.push(
        setTimeout(() => {
          timedOut = true;
          this.#logger.warn({ reason: "hard_timeout", sessionId, hardTimeoutMs: options.hardTimeoutMs }, "turn exceeded hard timeout");
          this.cancel(sessionId);
          timers.push(
            setTimeout(() => {
              this.#logger.warn({ reason: "hung", sessionId, hungGraceMs: options.hungGraceMs }, "force-evicting hung session");
              fail(new HardTimeoutError(options.hardTimeoutMs));
              void this.close();
            }, options.hungGraceMs),
          );
        }, options.hardTimeoutMs),
        setInterval(() => {
          if (!this.alive) fail(new AgentDiedError());
        }, options.livenessMs),
      );

      return () => {
        if (settle() && !answered) this.cancel(sessionId);
      };
    });
  }

  /** Terminates the agent process (SIGTERM, then SIGKILL) and fails whatever still waits on it. */
  async close(): Promise<void> {
    this.#connection.close();
    await this.process.terminate();
  }

  #route(method: string, params: unknown): void {
    if (method !== "session/update") {
      this.#logger.debug({ method: untrustedName(method) }, "agent notification ignored");
      return;
    }
    const parsed = sessionUpdateParams.safeParse(params);
    if (!parsed.success) {
      this.#logger.warn({ reason: "bad_session_update" }, "agent notification ignored");
      return;
    }
    const { sessionId, update } = parsed.data;
    if (this.#replaying.has(sessionId)) return;
    const route = this.#turns.route(sessionId);
    if ("drop" in route) {
      // No running turn owns it (see SessionTurns): never delivered, to that turn or a later one.
      // Whatever the agent put in them: an unknown session's id is not one of ours, so it is cleaned too.
      const fields = { reason: route.drop.reason, sessionId: untrustedName(sessionId), sessionUpdate: untrustedName(update.sessionUpdate) };
      if (route.drop.warn) this.#logger.warn(fields, "session update outside a turn");
      else this.#logger.debug(fields, "session update outside a turn");
      return;
    }
    const event = classifyUpdate(update, this.#redact);
    if (event !== undefined) route.owner.next(event);
  }

  #request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    return this.#connection.request(method, params, timeoutMs).catch(async (err: unknown) => {
      throw await withExitStatus(err, this.process);
    });
  }
}

/** Replaces a bare `AgentExitedError` with one that carries the exit code, once the process reports it. */
async function withExitStatus(err: unknown, agentProcess: AgentProcess): Promise<unknown> {
  if (!(err instanceof AgentExitedError) || err.exitCode !== null || err.signal !== null) return err;
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([agentProcess.exited, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 500)))]);
  clearTimeout(timer);
  return exit === undefined ? err : new AgentExitedError(exit.code, exit.signal, { cause: err });
}
