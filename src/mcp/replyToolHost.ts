import { Observable } from "rxjs";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import type { McpCapabilities, McpOffer, McpOffers, McpServerEntry } from "../acp/mcpServers.js";
import type { Logger } from "../log/logger.js";
import { cliMainPath } from "./cliEntry.js";
import { connectionLimitFor } from "./connectionLimit.js";
import { HttpEndpoint } from "./httpEndpoint.js";
import { ReplyBindings } from "./replyBindings.js";
import { REPLY_SERVER_NAME, type ReplyToolSpec } from "./replyToolSpec.js";
import { SocketEndpoint } from "./socketEndpoint.js";
import { MCP_ENDPOINT_ENV, MCP_SECRET_ENV } from "./stdioRelay.js";

export interface ReplyToolHostOptions {
  readonly spec: ReplyToolSpec;
  readonly logger: Logger;
  /** How an agent starts the stdio server; default `node <this build's CLI> mcp`. */
  readonly stdioCommand?: { readonly command: string; readonly args: readonly string[] };
  /** Open connections each endpoint keeps at most; default `connectionLimitFor([pool] max_sessions = 10)`. */
  readonly connectionLimit?: number;
}

/** Where the endpoints listen, logged once they do. */
export const REPLY_TOOL_LISTENING_LOG = "reply tool endpoints listening";

/**
 * The reply tool of one broker process (the worker that runs its sessions' turns): offers every
 * ACP session its own `turnstream` MCP server — always over stdio (the `turnstream mcp` relay,
 * which connects back to this process's socket), and over HTTP to agents that advertise it — each
 * bound to that session by a secret, and hands a running turn the calls made meanwhile.
 */
export class ReplyToolHost implements McpOffers {
  readonly spec: ReplyToolSpec;
  readonly #logger: Logger;
  readonly #bindings: ReplyBindings;
  readonly #stdio: { readonly command: string; readonly args: readonly string[] };
  readonly #connectionLimit: number;
  #endpoints: { readonly socket: SocketEndpoint; readonly http: HttpEndpoint } | undefined;

  constructor(options: ReplyToolHostOptions) {
    this.spec = options.spec;
    this.#logger = options.logger.child({ component: "reply_tool" });
    this.#bindings = new ReplyBindings(options.spec, this.#logger);
    this.#stdio = options.stdioCommand ?? { command: process.execPath, args: [cliMainPath, "mcp"] };
    this.#connectionLimit = options.connectionLimit ?? connectionLimitFor(10);
  }

  /**
   * Opens the socket and the HTTP endpoint; sessions can be offered the tool from then on. Rejects
   * with `ReplyToolEndpointError` (one line, nothing left behind) when either cannot be opened.
   */
  async start(): Promise<void> {
    if (this.#endpoints !== undefined) return;
    const limit = this.#connectionLimit;
    const socket = await SocketEndpoint.start(this.spec, this.#bindings, this.#logger, limit);
    try {
      this.#endpoints = { socket, http: await HttpEndpoint.start(this.spec, this.#bindings, this.#logger, limit) };
    } catch (err) {
      await socket.close();
      throw err;
    }
    this.#logger.info({ socket: socket.path, url: this.#endpoints.http.url, connectionLimit: limit }, REPLY_TOOL_LISTENING_LOG);
  }

  /** Connections each endpoint holds open now (zero before start). */
  get connections(): { readonly socket: number; readonly http: number } {
    return { socket: this.#endpoints?.socket.connections ?? 0, http: this.#endpoints?.http.connections ?? 0 };
  }

  /** Live bindings (sessions that hold a secret). */
  get sessions(): number {
    return this.#bindings.size;
  }

  /** A new secret for the session key's next ACP session, and the servers that carry it. */
  offer(sessionKey: string, capabilities: McpCapabilities): McpOffer {
    const endpoints = this.#endpoints;
    if (endpoints === undefined) throw new Error("the reply tool host offers sessions only once started");
    const { binding, secret } = this.#bindings.issue(sessionKey);
    const stdio: McpServerEntry = {
      name: REPLY_SERVER_NAME,
      command: this.#stdio.command,
      args: this.#stdio.args,
      env: [
        { name: MCP_ENDPOINT_ENV, value: endpoints.socket.path },
        { name: MCP_SECRET_ENV, value: secret },
      ],
    };
    const servers: McpServerEntry[] = [stdio];
    if (capabilities.http) {
      servers.push({ type: "http", name: REPLY_SERVER_NAME, url: endpoints.http.url, headers: [{ name: "Authorization", value: `Bearer ${secret}` }] });
    }
    return { servers, release: () => this.#bindings.revoke(binding) };
  }

  /**
   * The `reply` calls made while subscribed, as events of the session key's running turn: a call
   * is accepted only between subscribe and unsubscribe (see `withReplyCalls`). Never completes.
   */
  turnCalls(sessionKey: string): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const turn = this.#bindings.current(sessionKey)?.openTurn((event) => subscriber.next(event));
      return () => turn?.close();
    });
  }

  async close(): Promise<void> {
    this.#bindings.revokeAll();
    const endpoints = this.#endpoints;
    this.#endpoints = undefined;
    if (endpoints !== undefined) await Promise.all([endpoints.socket.close(), endpoints.http.close()]);
  }
}
