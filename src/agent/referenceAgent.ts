import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../log/logger.js";
import { z } from "zod";
import { rpcErrorCodes, RpcError } from "../acp/jsonRpc.js";
import { packageVersion } from "../version.js";
import { AgentConnection } from "./agentConnection.js";
import { agentDefaults, type AgentSettings } from "./agentSettings.js";
import { forwardAsk } from "./askCall.js";
import { ASK_TOOL_NAME } from "./askTool.js";
import { chatCompletions, type ChatMessage, type ChatModel } from "./chatCompletions.js";
import { closeOpenToolCalls, HISTORY_TURNS, promptText } from "./conversation.js";
import { ModelRequestError } from "./errors.js";
import { replyPromptAppendix } from "./replyPrompt.js";
import { runReplyTurn } from "./replyTurn.js";
import { connectTurnstream, stdioTransportOf, turnstreamEntry, type TurnstreamServer, type TurnstreamStdioEntry } from "./turnstreamServer.js";

export interface ReferenceAgentOptions {
  /** The client's messages (stdin). */
  readonly input: Readable;
  /** The agent's messages (stdout): nothing else may be written there. */
  readonly output: Writable;
  readonly settings: AgentSettings;
  /** Writes to stderr in the CLI: stdout is the ACP channel. */
  readonly logger: Logger;
  /** The model; an OpenAI-compatible chat-completions client for `settings` unless given. */
  readonly model?: ChatModel;
}

export interface ReferenceAgent {
  /** Resolves when the client's input ended. */
  readonly closed: Promise<void>;
  /** Cancels every running turn (each answers `cancelled`). */
  cancelAll(): void;
  /** Cancels every running turn and closes the sessions' MCP servers (their processes exit). */
  close(): Promise<void>;
}

interface Session {
  /** Past turns, oldest first, each a complete exchange the API accepts. */
  readonly turns: ChatMessage[][];
  running?: AbortController;
  /** The `turnstream` MCP server offered in `session/new`, if any. */
  readonly entry?: TurnstreamStdioEntry;
  /** Its connection, opened at `session/new`; undefined inside when it failed (the next prompt tries again). */
  server?: Promise<TurnstreamServer | undefined>;
}

const newParams = z.looseObject({ mcpServers: z.array(z.unknown()).max(64).optional() });
const promptParams = z.looseObject({ sessionId: z.string(), prompt: z.array(z.unknown()) });
const cancelParams = z.looseObject({ sessionId: z.string() });

/**
 * turnstream's reference ACP agent (the agent side of ACP v1): `initialize`, `session/new`,
 * `session/prompt` (one tool-calling loop against the model, see `runReplyTurn`), `session/cancel`;
 * replies through the `reply` tool in `settings.mode`. When a session is offered turnstream's own
 * MCP server (`mcpServers` entry `turnstream`) and it lists `ask`, the model is offered `ask` too,
 * and its calls go to that server: the broker asks the person in the chat. Sessions live in memory only.
 */
export function serveReferenceAgent(options: ReferenceAgentOptions): ReferenceAgent {
  const { settings, logger } = options;
  const model = options.model ?? chatCompletions(settings);
  const connection = new AgentConnection({ input: options.input, output: options.output, logger });
  const sessions = new Map<string, Session>();
  const askTimeoutMs = settings.askTimeoutMs ?? agentDefaults.askTimeoutSecs * 1000;

  /** Opens the session's server; a failure is logged and leaves the session without `ask`. */
  const openServer = (sessionId: string, entry: TurnstreamStdioEntry): Promise<TurnstreamServer | undefined> =>
    connectTurnstream(stdioTransportOf(entry)).catch((err: unknown) => {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
      logger.warn({ sessionId, reason: "mcp_connect_failed", error: err instanceof Error ? err.message : String(err), cause }, "turnstream mcp server unavailable");
      return undefined;
    });

  /** The session's server for this prompt: connected again when the last attempt failed or the connection ended. */
  const serverFor = async (sessionId: string, session: Session): Promise<TurnstreamServer | undefined> => {
    if (session.entry === undefined) return undefined;
    const current = await session.server;
    if (current !== undefined && !current.closed) return current;
    session.server = openServer(sessionId, session.entry);
    return session.server;
  };

  const closeServers = async (): Promise<void> => {
    const servers = [...sessions.values()].map((session) => session.server);
    await Promise.allSettled(servers.map(async (server) => (await server)?.close()));
  };
  const system: ChatMessage = {
    role: "system",
    content: `${settings.systemPrompt}\n\n${replyPromptAppendix({ mode: settings.mode, maxBubbles: settings.maxBubbles, maxBubbleChars: settings.maxBubbleChars })}`,
  };

  connection
    .onRequest("initialize", () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: true } },
      agentInfo: { name: "turnstream-agent", title: "turnstream reference agent", version: packageVersion() },
      authMethods: [],
    }))
    .onRequest("session/new", (params) => {
      const sessionId = `turnstream-agent-${randomUUID()}`;
      const parsed = newParams.safeParse(params);
      const entry = parsed.success ? turnstreamEntry(parsed.data.mcpServers) : undefined;
      // Connected now, in the background: the relay's start-up overlaps the wait for the first prompt.
      sessions.set(sessionId, entry === undefined ? { turns: [] } : { turns: [], entry, server: openServer(sessionId, entry) });
      return { sessionId };
    })
    .onRequest("session/prompt", async (params) => {
      const parsed = promptParams.safeParse(params);
      if (!parsed.success) throw new RpcError(rpcErrorCodes.invalidParams, "Invalid params");
      const { sessionId, prompt } = parsed.data;
      const session = sessions.get(sessionId);
      if (session === undefined) throw new RpcError(rpcErrorCodes.resourceNotFound, "Resource not found", { sessionId });
      if (session.running !== undefined) throw new RpcError(rpcErrorCodes.invalidRequest, "a prompt is already running in this session");

      const turn = new AbortController();
      session.running = turn;
      const transcript: ChatMessage[] = [{ role: "user", content: promptText(prompt) }];
      try {
        const server = await serverFor(sessionId, session);
        const ask =
          server?.tools.has(ASK_TOOL_NAME) === true
            ? (argumentsText: string) => forwardAsk(argumentsText, { server, signal: turn.signal, totalTimeoutMs: askTimeoutMs, sessionId, logger })
            : undefined;
        const stopReason = await runReplyTurn([system, ...session.turns.flat()], transcript, {
          mode: settings.mode,
          maxBubbles: settings.maxBubbles,
          maxBubbleChars: settings.maxBubbleChars,
          maxSteps: settings.maxSteps,
          schema: settings.schema,
          silentToken: settings.silentToken,
          lookupTable: settings.lookupTable,
          ...(ask === undefined ? {} : { ask }),
          model,
          sessionId,
          send: (method, body) => connection.notify(method, body),
          signal: turn.signal,
          logger,
        });
        return { stopReason };
      } catch (err) {
        // ACP: a cancelled turn answers `cancelled`, even when cancelling made the work throw.
        if (turn.signal.aborted) return { stopReason: "cancelled" };
        if (err instanceof ModelRequestError) {
          logger.error({ sessionId, reason: err.problem, status: err.status, detail: err.detail }, "model request failed");
          throw new RpcError(rpcErrorCodes.internalError, err.message);
        }
        throw err;
      } finally {
        session.running = undefined;
        session.turns.push(closeOpenToolCalls(transcript, "not run: the turn ended first."));
        session.turns.splice(0, Math.max(0, session.turns.length - HISTORY_TURNS));
      }
    })
    .onNotification("session/cancel", (params) => {
      const parsed = cancelParams.safeParse(params);
      if (parsed.success) sessions.get(parsed.data.sessionId)?.running?.abort();
    });

  const cancelAll = (): void => {
    for (const session of sessions.values()) session.running?.abort();
  };
  // No more prompts can come: the servers' processes are not needed any more.
  void connection.closed.then(closeServers);

  return {
    closed: connection.closed,
    cancelAll,
    close: async () => {
      cancelAll();
      await closeServers();
    },
  };
}
