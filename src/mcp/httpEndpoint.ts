import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "../log/logger.js";
import { ConnectionLimit, MCP_CONNECTION_LIMIT_LOG } from "./connectionLimit.js";
import { ReplyToolEndpointError } from "./errors.js";
import { RefusalTally } from "../log/refusalTally.js";
import type { ReplyBinding } from "./replyBinding.js";
import type { ReplyBindings } from "./replyBindings.js";
import { createReplyServer } from "./replyToolServer.js";
import type { ReplyToolSpec } from "./replyToolSpec.js";

/** The only path served. */
export const MCP_HTTP_PATH = "/mcp";
/** Our clients are local and send a request's headers at once; a connection still sending them after this is cut. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How often the server looks for connections past `HEADERS_TIMEOUT_MS` (Node's default is 30 s). */
const CONNECTIONS_CHECK_MS = 1_000;
/** RFC 6750's challenge; no `resource_metadata`: there is no authorization server to discover, the bearer comes with the session's MCP entry. */
const CHALLENGE = 'Bearer realm="turnstream"';

export const MCP_UNAUTHORIZED_LOG = "reply tool request refused: no live bearer";

/**
 * The reply tool over MCP's streamable HTTP transport, on 127.0.0.1, for agents that advertise
 * `mcpCapabilities.http`. Every request must carry `Authorization: Bearer <secret>` naming a live
 * session: any other is answered 401 before MCP sees it, and its connection closed. Stateless (a
 * server and transport per request, answered with JSON, as the SDK recommends for a server
 * without sessions of its own): there is no server-initiated stream, so `GET` (and any method but
 * `POST`) is answered 405. At most `limit` connections are open; one that has not presented a live
 * bearer makes room for a newer one.
 */
export class HttpEndpoint {
  readonly url: string;
  readonly #server: Server;
  readonly #connections: ConnectionLimit<Socket>;
  readonly #tallies: readonly RefusalTally[];

  private constructor(url: string, server: Server, connections: ConnectionLimit<Socket>, tallies: readonly RefusalTally[]) {
    this.url = url;
    this.#server = server;
    this.#connections = connections;
    this.#tallies = tallies;
  }

  static async start(spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger, limit: number): Promise<HttpEndpoint> {
    const unauthorized = new RefusalTally(logger, { msg: MCP_UNAUTHORIZED_LOG, reason: "mcp_unauthorized", fields: { endpoint: "http" } });
    const limited = new RefusalTally(logger, { msg: MCP_CONNECTION_LIMIT_LOG, reason: "mcp_connection_limit", fields: { endpoint: "http", limit } });
    const connections = new ConnectionLimit<Socket>(limit, () => limited.count());
    const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CONNECTIONS_CHECK_MS }, (req, res) => {
      const binding = authorize(req, res, bindings, () => unauthorized.count());
      if (binding === undefined) {
        // Answered and closing: not one for the cap to close again (and count twice).
        connections.release(req.socket);
        return;
      }
      connections.trust(req.socket);
      void serve(req, res, spec, binding, logger);
    });
    server.on("connection", (socket: Socket) => {
      if (connections.admit(socket)) socket.once("close", () => connections.release(socket));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      throw new ReplyToolEndpointError(`cannot listen on 127.0.0.1 for the reply tool (${(err as NodeJS.ErrnoException).code ?? "error"})`, { cause: err });
    }
    server.on("error", (err) => logger.warn({ reason: "mcp_endpoint_error", err }, "reply tool endpoint error"));
    const { port } = server.address() as AddressInfo;
    return new HttpEndpoint(`http://127.0.0.1:${port}${MCP_HTTP_PATH}`, server, connections, [unauthorized, limited]);
  }

  /** Connections open now. */
  get connections(): number {
    return this.#connections.open;
  }

  close(): Promise<void> {
    for (const tally of this.#tallies) tally.flush();
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * The live binding the request's bearer names; otherwise answers it (404 off `/mcp`, 401 without
 * a live bearer), closing the connection, and returns undefined.
 */
function authorize(req: IncomingMessage, res: ServerResponse, bindings: ReplyBindings, onUnauthorized: () => void): ReplyBinding | undefined {
  if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== MCP_HTTP_PATH) {
    res.writeHead(404, { connection: "close" }).end();
    return undefined;
  }
  const header = req.headers.authorization;
  const secret = /^Bearer +(\S+) *$/i.exec(header ?? "")?.[1];
  const binding = secret === undefined ? undefined : bindings.find(secret);
  if (binding !== undefined) return binding;
  onUnauthorized();
  // RFC 6750 §3.1: an error code only when a token was presented; none when the request had no bearer at all.
  const challenge = secret === undefined ? CHALLENGE : `${CHALLENGE}, error="invalid_token"`;
  answer(res, 401, "Unauthorized: this endpoint takes the bearer a session was offered in its MCP server entry", { "www-authenticate": challenge, connection: "close" });
  return undefined;
}

async function serve(req: IncomingMessage, res: ServerResponse, spec: ReplyToolSpec, binding: ReplyBinding, logger: Logger): Promise<void> {
  if (req.method !== "POST") {
    logger.debug({ reason: "mcp_method_not_allowed", method: req.method }, "reply tool request refused: method not allowed");
    answer(res, 405, "Method not allowed: this server is stateless and offers no stream; POST each message", { allow: "POST" });
    return;
  }
  // Never called: the binding is live (a refusal for a secret revoked since is the binding's own).
  const server = createReplyServer(spec, binding, () => undefined);
  // A response may stream (SSE): a waiting `ask` call sends progress notifications before its result.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (err) {
    logger.warn({ reason: "mcp_http_failed", err }, "reply tool request failed");
    if (!res.headersSent) answer(res, 500, "Internal error", {}, -32603);
  }
}

/** A JSON-RPC error as the body (what the SDK's own transport answers with), no request id. */
function answer(res: ServerResponse, status: number, message: string, headers: Record<string, string>, code = -32000): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
