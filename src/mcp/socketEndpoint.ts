import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "../log/logger.js";
import type { ReplyBindings } from "./replyBindings.js";
import { createReplyServer } from "./replyToolServer.js";
import type { ReplyToolSpec } from "./replyToolSpec.js";

/** A secret line is 43 characters; anything much longer before a newline is not a client of ours. */
const MAX_HELLO_BYTES = 256;
/** A connection that has not sent its secret by then is dropped. */
const HELLO_TIMEOUT_MS = 10_000;
/** Bound on one MCP message from an agent (a reply is a few KB; the SDK's default is larger). */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * The local endpoint the `turnstream mcp` stdio relay connects back to: a unix socket in a fresh
 * directory only the broker's user can enter (0700; the socket itself 0600). A connection's first
 * line is its secret; the rest is MCP (newline-delimited JSON-RPC), served by a reply server bound
 * to the session the secret names — or refusing every call when it names none.
 */
export class SocketEndpoint {
  readonly path: string;
  readonly #server: Server;
  readonly #dir: string;
  readonly #sockets = new Set<Socket>();

  private constructor(path: string, dir: string, server: Server) {
    this.path = path;
    this.#dir = dir;
    this.#server = server;
  }

  static async start(spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger): Promise<SocketEndpoint> {
    const dir = await mkdtemp(join(tmpdir(), "turnstream-mcp-"));
    await chmod(dir, 0o700);
    const path = join(dir, "reply.sock");
    const server = createServer();
    const endpoint = new SocketEndpoint(path, dir, server);
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
      throw err;
    }
    server.on("error", (err) => logger.warn({ reason: "mcp_endpoint_error", err }, "reply tool endpoint error"));
    return endpoint;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  #accept(socket: Socket, spec: ReplyToolSpec, bindings: ReplyBindings, logger: Logger): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.on("error", (err) => logger.debug({ reason: "mcp_connection_error", err }, "reply tool connection error"));
    const timeout = setTimeout(() => {
      logger.warn({ reason: "mcp_hello_timeout" }, "reply tool connection sent no secret; closed");
      socket.destroy();
    }, HELLO_TIMEOUT_MS);
    timeout.unref();
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const newline = head.indexOf(0x0a);
      if (newline === -1) {
        if (head.length > MAX_HELLO_BYTES) {
          logger.warn({ reason: "mcp_bad_hello" }, "reply tool connection did not start with a secret; closed");
          clearTimeout(timeout);
          socket.destroy();
        }
        return;
      }
      clearTimeout(timeout);
      socket.off("data", onData);
      socket.pause();
      const rest = head.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      const binding = bindings.find(head.subarray(0, newline).toString("utf8").trim());
      // The secret is never logged: an unknown one is reported by its absence only.
      const onUnknown = () => logger.warn({ reason: "reply_tool_unknown_secret" }, "reply tool call refused");
      const server = createReplyServer(spec, binding, onUnknown);
      const transport = new StdioServerTransport(socket, socket, { maxBufferSize: MAX_MESSAGE_BYTES });
      transport.onerror = (err) => logger.debug({ reason: "mcp_protocol_error", err }, "reply tool connection sent a bad message");
      socket.on("close", () => void server.close());
      server.connect(transport).then(
        () => socket.resume(),
        (err: unknown) => {
          logger.warn({ reason: "mcp_connect_failed", err }, "reply tool connection failed");
          socket.destroy();
        },
      );
    };
    socket.on("data", onData);
  }
}
