import { chmod, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import type { Logger } from "../log/logger.js";
import { ConnectionLimit, MCP_CONNECTION_LIMIT_LOG } from "./connectionLimit.js";
import { ReplyToolEndpointError } from "./errors.js";
import { RefusalTally } from "../log/refusalTally.js";
import type { ReplyBindings } from "./replyBindings.js";
import { createReplyServer } from "./replyToolServer.js";
import type { ReplyToolSpec } from "./replyToolSpec.js";
import { makeSocketDir } from "./socketDir.js";
import { SocketLineTransport } from "./socketLineTransport.js";

/** A secret line is 43 characters; anything much longer before a newline is not a client of ours. */
const MAX_HELLO_BYTES = 256;
/** A connection that has not sent its secret by then is dropped. */
const HELLO_TIMEOUT_MS = 10_000;
/** Bound on one MCP message from an agent (a reply is a few KB; the SDK's default is larger). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export const MCP_SOCKET_FALLBACK_LOG = "reply tool socket placed under /tmp: TMPDIR is too long for a unix socket path";

/**
 * The local endpoint the `turnstream mcp` stdio relay connects back to: a unix socket in a fresh
 * directory only the broker's user can enter (0700; the socket itself 0600). A connection's first
 * line is its secret; the rest is MCP (newline-delimited JSON-RPC), served by a reply server bound
 * to the session the secret names — or refusing every call when it names none. At most `limit`
 * connections are open; one without a live secret makes room for a newer one.
 */
export class SocketEndpoint {
  readonly path: string;
  readonly #server: Server;
  readonly #dir: string;
  readonly #connections: ConnectionLimit<Socket>;
  readonly #limited: RefusalTally;

  private constructor(path: string, dir: string, server: Server, limit: number, logger: Logger) {
    this.path = path;
    this.#dir = dir;
    this.#server = server;
    this.#limited = new RefusalTally(logger, { msg: MCP_CONNECTION_LIMIT_LOG, reason: "mcp_connection_limit", fields: { endpoint: "socket", limit } });
    this.#connections = new ConnectionLimit(limit, () => this.#limited.count());
  }

  static async start(spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger, limit: number): Promise<SocketEndpoint> {
    const { dir, path, fallback } = await makeSocketDir();
    if (fallback) logger.warn({ reason: "mcp_socket_dir_fallback", path }, MCP_SOCKET_FALLBACK_LOG);
    const server = createServer({ pauseOnConnect: true });
    const endpoint = new SocketEndpoint(path, dir, server, limit, logger);
    server.on("connection", (socket) => endpoint.#accept(socket, spec, bindings, logger));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(path, () => {
          server.off("error", reject);
          resolve();
        });
      });
      await chmod(path, 0o600);
    } catch (err) {
      server.close();
      await rm(dir, { recursive: true, force: true });
      throw new ReplyToolEndpointError(`cannot listen on the reply tool's socket (${(err as NodeJS.ErrnoException).code ?? "error"})`, { cause: err });
    }
    server.on("error", (err) => logger.warn({ reason: "mcp_endpoint_error", err }, "reply tool endpoint error"));
    return endpoint;
  }

  /** Connections open now. */
  get connections(): number {
    return this.#connections.open;
  }

  async close(): Promise<void> {
    this.#connections.closeAll();
    this.#limited.flush();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  #accept(socket: Socket, spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger): void {
    socket.on("error", (err) => logger.debug({ reason: "mcp_connection_error", err }, "reply tool connection error"));
    if (!this.#connections.admit(socket)) return;
    socket.on("close", () => this.#connections.release(socket));
    const timeout = setTimeout(() => {
      logger.warn({ reason: "mcp_hello_timeout" }, "reply tool connection sent no secret; closed");
      socket.destroy();
    }, HELLO_TIMEOUT_MS);
    timeout.unref();
    socket.once("close", () => clearTimeout(timeout));
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      const newline = chunk.indexOf(0x0a);
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const end = newline === -1 ? -1 : head.length - chunk.length + newline;
      if (end === -1 ? head.length > MAX_HELLO_BYTES : end > MAX_HELLO_BYTES) {
        logger.warn({ reason: "mcp_bad_hello" }, "reply tool connection did not start with a secret; closed");
        clearTimeout(timeout);
        socket.destroy();
        return;
      }
      if (end === -1) return;
      clearTimeout(timeout);
      socket.off("data", onData);
      socket.pause();
      const binding = bindings.find(head.subarray(0, end).toString("utf8").trim());
      if (binding !== undefined) this.#connections.trust(socket);
      // The secret is never logged: an unknown one is reported by its absence only.
      const onUnknown = () => logger.warn({ reason: "reply_tool_unknown_secret" }, "reply tool call refused");
      const server = createReplyServer(spec, binding, onUnknown);
      const transport = new SocketLineTransport(socket, {
        maxMessageBytes: MAX_MESSAGE_BYTES,
        head: head.subarray(end + 1),
        onTooLarge: () => logger.warn({ reason: "mcp_message_too_large", limit: MAX_MESSAGE_BYTES }, "reply tool connection sent a message too large; closed"),
      });
      transport.onerror = (err) => logger.debug({ reason: "mcp_protocol_error", err }, "reply tool connection sent a bad message");
      server.connect(transport).catch((err: unknown) => {
        logger.warn({ reason: "mcp_connect_failed", err }, "reply tool connection failed");
        socket.destroy();
      });
    };
    socket.on("data", onData);
    socket.resume();
  }
}
