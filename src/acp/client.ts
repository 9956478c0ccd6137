import { finalize, type Observable, type Subscriber } from "rxjs";
import { z } from "zod";
import type { Logger } from "../log/logger.js";
import type { AgentExitCause } from "../metrics/instruments.js";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import type { Redact } from "../../operators/delivery/text/redactSecrets.js";
import type { ContentBlock, PromptCapabilities } from "../../operators/dispatch/contentBlock.js";
import { isPlainText } from "../../operators/ingress/untrustedText.js";
import type { AgentConfig } from "../config/index.js";
import { AgentProcess } from "./agentProcess.js";
import { agentRequestAnswerer, type AgentRequestAnswerer } from "./agentRequests.js";
import { JsonRpcConnection } from "./connection.js";
import { AcpProtocolError } from "./errors.js";
import { initialize, type InitializedAgent } from "./initialize.js";
import { rpcErrorCodes, RpcError } from "./jsonRpc.js";
import type { McpCapabilities, McpServerEntry } from "./mcpServers.js";
import { promptTurn, type PromptOptions } from "./promptTurn.js";
import { SessionTurns } from "./sessionTurns.js";
import { routeSessionUpdate, type SessionUpdateRouting } from "./sessionUpdateRouting.js";
import { withExitStatus } from "./withExitStatus.js";

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

export interface SessionInfo {
  readonly sessionId: string;
  readonly configOptions: readonly unknown[];
}

// The session id is logged and sent back as it is, so it must be plain text already (no control
// characters, at most 500 chars): an agent that picks another cannot be held to a session.
const newSessionResult = z.looseObject({ sessionId: z.string().min(1).refine((id) => isPlainText(id)), configOptions: z.array(z.unknown()).optional() });

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
  /** What the agent's prompts may hold beyond text (`initialize`'s `promptCapabilities`). */
  readonly promptCapabilities: PromptCapabilities;
  readonly #connection: JsonRpcConnection;
  readonly #logger: Logger;
  readonly #sessionNewMs: number;
  readonly #requestMs: number;
  /** Which turn owns each session's updates. */
  readonly #turns = new SessionTurns<Subscriber<AgentEvent>>();
  readonly #replaying = new Set<string>();
  /** Where the agent's `session/update`s go: built once, not per update. */
  readonly #routing: SessionUpdateRouting;
  /** Answers the agent's requests (permissions by `[agent] permission_mode`; -32601 for the rest). */
  readonly #answerAgent: AgentRequestAnswerer;

  private constructor(process: AgentProcess, connection: JsonRpcConnection, agent: InitializedAgent, options: AcpClientOptions, logger: Logger) {
    this.process = process;
    this.#connection = connection;
    this.#logger = logger;
    this.#sessionNewMs = options.timeouts?.sessionNewMs ?? 120_000;
    this.#requestMs = options.timeouts?.requestMs ?? 30_000;
    this.#routing = { turns: this.#turns, replaying: this.#replaying, logger, redact: options.redact };
    this.agentName = agent.agentName;
    this.supportsLoadSession = agent.supportsLoadSession;
    this.mcpCapabilities = agent.mcpCapabilities;
    this.promptCapabilities = agent.promptCapabilities;
    const { agent: config } = options;
    this.#answerAgent = agentRequestAnswerer({
      // Absent in a hand-built AgentConfig: OpenAB's rule.
      permissionMode: config.permission_mode ?? "allow_always",
      asking: {
        fallback: config.permission_fallback ?? "reject",
        timeoutMs: (config.permission_timeout_secs ?? 300) * 1000,
        places: { workspaceRoot: config.working_dir, ...(options.env.HOME === undefined ? {} : { home: options.env.HOME }) },
        ...(options.redact === undefined ? {} : { redact: options.redact }),
        // The question joins the running turn's events: the turn asks it in its own conversation.
        ask: (sessionId, event) => {
          const owner = this.#turns.owner(sessionId);
          if (owner === undefined || owner.closed) return false;
          owner.next(event);
          return true;
        },
      },
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
        return client.#answerAgent.answer(method, params);
      },
    });
    try {
      const agent = await initialize(connection, { command: options.agent.command, clientVersion: options.clientVersion, requestMs: options.timeouts?.requestMs ?? 30_000 });
      client = new AcpClient(agentProcess, connection, agent, options, logger);
      const routing = client.#routing;
      connection.notifications.subscribe((notification) => routeSessionUpdate(notification.method, notification.params, routing));
      logger.info({ agent: client.agentName, loadSession: client.supportsLoadSession, embeddedContext: client.promptCapabilities.embeddedContext }, "agent initialized");
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
    this.#answerAgent.cancelAsked(sessionId);
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
    // A permission question still open when the turn is over is answered `cancelled`.
    return promptTurn({ client: this, connection: this.#connection, turns: this.#turns, logger: this.#logger }, sessionId, prompt, options).pipe(
      finalize(() => this.#answerAgent.cancelAsked(sessionId)),
    );
  }

  /** Terminates the agent process (SIGTERM, then SIGKILL) and fails whatever still waits on it. */
  async close(): Promise<void> {
    this.#connection.close();
    await this.process.terminate();
  }

  #request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    return this.#connection.request(method, params, timeoutMs).catch(async (err: unknown) => {
      throw await withExitStatus(err, this.process);
    });
  }
}
