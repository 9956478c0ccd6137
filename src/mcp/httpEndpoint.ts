import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "../log/logger.js";
import type { ReplyBindings } from "./replyBindings.js";
import { createReplyServer } from "./replyToolServer.js";
import type { ReplyToolSpec } from "./replyToolSpec.js";

/** The only path served. */
export const MCP_HTTP_PATH = "/mcp";

/**
 * The reply tool over MCP's streamable HTTP transport, on 127.0.0.1, for agents that advertise
 * `mcpCapabilities.http`: stateless (a server and transport per request, as the SDK recommends
 * for a server without sessions of its own), each request bound to the session its
 * `Authorization: Bearer <secret>` names. An unknown secret is served like one over the socket: every
 * call is refused with a tool error.
 */
export class HttpEndpoint {
  readonly url: string;
  readonly #server: Server;

  private constructor(url: string, server: Server) {
    this.url = url;
    this.#server = server;
  }

  static async start(spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger): Promise<HttpEndpoint> {
    const server = createServer((req, res) => void serve(req, res, spec, bindings, logger));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (err) => logger.warn({ reason: "mcp_endpoint_error", err }, "reply tool endpoint error"));
    const { port } = server.address() as AddressInfo;
    return new HttpEndpoint(`http://127.0.0.1:${port}${MCP_HTTP_PATH}`, server);
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger): Promise<void> {
  if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== MCP_HTTP_PATH) {
    res.writeHead(404).end();
    return;
  }
  const secret = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  const binding = secret === undefined ? undefined : bindings.find(secret);
  const server = createReplyServer(spec, binding, () => logger.warn({ reason: "reply_tool_unknown_secret" }, "reply tool call refused"));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (err) {
    logger.warn({ reason: "mcp_http_failed", err }, "reply tool request failed");
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }));
  }
}
