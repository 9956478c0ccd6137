import type { Readable, Writable } from "node:stream";
import type { Logger } from "../log/logger.js";
import { parseFrame, rpcErrorCodes, RpcError, type IncomingFrame, type RpcId } from "../acp/jsonRpc.js";
import { LineSplitter, type SplitResult } from "../acp/lineSplitter.js";
import { AgentConnectionClosedError } from "./errors.js";

/** Answers one client request; throw `RpcError` to answer with a JSON-RPC error. */
export type AgentRequestHandler = (params: unknown) => unknown;
export type AgentNotificationHandler = (params: unknown) => void;

export interface AgentConnectionOptions {
  /** The client's messages: the agent process's stdin. */
  readonly input: Readable;
  /** The agent's messages: its stdout, and nothing else may be written there. */
  readonly output: Writable;
  readonly logger: Logger;
  /** Longest accepted line (default 32 MiB, as the ACP SDK). */
  readonly maxLineBytes?: number;
}

const defaultMaxLineBytes = 32 * 1024 * 1024;

/**
 * The agent side of ACP's transport: JSON-RPC 2.0 as one compact JSON object per line. Client
 * requests go to their registered handler (answered when it settles, so a long `session/prompt`
 * does not hold up a `session/cancel`); unknown requests get `-32601`; unknown notifications and
 * lines that are not JSON-RPC are logged and skipped, never answered.
 */
export class AgentConnection {
  readonly #options: AgentConnectionOptions;
  readonly #requests = new Map<string, AgentRequestHandler>();
  readonly #notifications = new Map<string, AgentNotificationHandler>();
  readonly #splitter: LineSplitter;
  /** Set once a write failed: the client can no longer hear us. */
  #broken = false;
  /** Resolves when the client's input ends: no more requests will come (answers can still be written). */
  readonly closed: Promise<void>;

  constructor(options: AgentConnectionOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter(options.maxLineBytes ?? defaultMaxLineBytes);
    options.input.on("data", (chunk: Buffer) => {
      for (const piece of this.#splitter.push(chunk)) this.#receive(piece);
    });
    this.closed = new Promise((resolve) => {
      const finish = (): void => {
        const last = this.#splitter.end();
        if (last !== undefined) this.#receive(last);
        resolve();
      };
      options.input.once("end", finish);
      options.input.once("close", finish);
    });
    options.output.on("error", (err) => {
      this.#broken = true;
      options.logger.debug({ err }, "acp write failed");
    });
  }

  onRequest(method: string, handler: AgentRequestHandler): this {
    this.#requests.set(method, handler);
    return this;
  }

  onNotification(method: string, handler: AgentNotificationHandler): this {
    this.#notifications.set(method, handler);
    return this;
  }

  /** Sends a notification; resolves once it was written, rejects when the connection is gone. */
  notify(method: string, params: unknown): Promise<void> {
    return this.#write({ method, params });
  }

  #receive(piece: SplitResult): void {
    const { logger } = this.#options;
    if (piece.kind === "oversized") {
      logger.warn({ reason: "line_too_long", bytes: piece.bytes }, "acp line dropped");
      return;
    }
    if (piece.line.trim() === "") return;
    const frame = parseFrame(piece.line);
    if (typeof frame === "string") {
      logger.warn({ reason: frame, sample: piece.line.slice(0, 200) }, "acp line dropped");
      return;
    }
    this.#dispatch(frame);
  }

  #dispatch(frame: IncomingFrame): void {
    const { logger } = this.#options;
    switch (frame.kind) {
      case "notification": {
        const handler = this.#notifications.get(frame.method);
        if (handler === undefined) logger.debug({ method: frame.method }, "acp notification ignored");
        else handler(frame.params);
        return;
      }
      case "request":
        void this.#answer(frame.id, frame.method, frame.params);
        return;
      default:
        // This agent sends the client no requests, so no answer is expected.
        logger.debug({ id: frame.id }, "acp response ignored");
    }
  }

  async #answer(id: RpcId, method: string, params: unknown): Promise<void> {
    const { logger } = this.#options;
    const handler = this.#requests.get(method);
    let reply: Record<string, unknown>;
    if (handler === undefined) {
      logger.warn({ reason: "method_not_found", method }, "acp request refused");
      reply = { id, error: { code: rpcErrorCodes.methodNotFound, message: "Method not found", data: { method } } };
    } else {
      try {
        reply = { id, result: (await handler(params)) ?? null };
      } catch (err) {
        if (err instanceof RpcError) {
          reply = { id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
        } else {
          logger.error({ method, err }, "acp request handler failed");
          reply = { id, error: { code: rpcErrorCodes.internalError, message: "Internal error" } };
        }
      }
    }
    // A client that went away cannot be answered; the write error was logged.
    await this.#write(reply).catch(() => undefined);
  }

  #write(message: Record<string, unknown>): Promise<void> {
    if (this.#broken) return Promise.reject(new AgentConnectionClosedError());
    const line = `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
    return new Promise((resolve, reject) => {
      this.#options.output.write(line, (err) => {
        if (err === null || err === undefined) return resolve();
        this.#broken = true;
        reject(new AgentConnectionClosedError({ cause: err }));
      });
    });
  }
}
