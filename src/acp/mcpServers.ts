/**
 * The MCP servers a client offers an agent in `session/new` and `session/load` (ACP's
 * `McpServer`): every agent must run a stdio server itself, as its own child; an HTTP server only
 * when `initialize` advertised `agentCapabilities.mcpCapabilities.http`.
 */
export type McpServerEntry = McpStdioServer | McpHttpServer;

export interface NameValue {
  readonly name: string;
  readonly value: string;
}

export interface McpStdioServer {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Merged by the agent with the environment it runs with. */
  readonly env: readonly NameValue[];
}

export interface McpHttpServer {
  readonly type: "http";
  readonly name: string;
  readonly url: string;
  readonly headers: readonly NameValue[];
}

/** What an agent said it can do with MCP servers (`agentCapabilities.mcpCapabilities`). */
export interface McpCapabilities {
  readonly http: boolean;
}

/** One ACP session's MCP servers, held for the session's life. */
export interface McpOffer {
  readonly servers: readonly McpServerEntry[];
  /** The session is gone: its servers stop serving it. */
  release(): void;
}

/** What the session pool asks for the servers to offer each session it creates or resumes. */
export interface McpOffers {
  offer(sessionKey: string, capabilities: McpCapabilities): McpOffer;
}
