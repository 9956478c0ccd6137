import type { Readable, Writable } from "node:stream";
import { Subject, type Observable } from "rxjs";
import type { Logger } from "../log/logger.js";
import type { Redact } from "../../operators/delivery/text/redactSecrets.js";
import { untrustedName, untrustedText } from "../../operators/ingress/untrustedText.js";
import { AcpTimeoutError, AcpRequestError, AgentExitedError } from "./errors.js";
import { parseFrame, rpcErrorCodes, RpcError, type RpcId } from "./jsonRpc.js";
import { LineSplitter } from "./lineSplitter.js";

export interface Notification {
  readonly method: string;
  readonly params: unknown;
}

/** Answers one request from the agent; throw `RpcError` to answer with an error. */
export type RequestHandler = (method: string, params: unknown) => unknown;

export interface ConnectionOptions {
  /** The agent's stdout. */
  readonly input: Readable;
  /** The agent's stdin. */
  readonly output: Writable;
  readonly logger: Logger;
  readonly onRequest: RequestHandler;
  /** Longest accepted line (default 32 MiB, as the ACP SDK). */
  readonly maxLineBytes?: number;
  /** Masks secrets in the agent's error messages, which users are shown (default: the known token shapes). */
  readonly redact?: Redact;
}

interface Pending {
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout | undefined;
  readonly onAnswer: (() => void) | undefined;
}

const defaultMaxLineBytes = 32 * 1024 * 1024;
const sampleChars = 200;

/**
 * JSON-RPC 2.0 over newline-delimited JSON. Notifications are emitted synchronously, in wire
 * order, on `notifications`; requests from the agent go to `onRequest`; requests to the agent
 * carry integer ids from 1. A line that is not JSON-RPC is logged and skipped: nothing is ever
 * written back for it.
 */
export class JsonRpcConnection {
  readonly #options: ConnectionOptions;
  readonly #pending = new Map<RpcId, Pending>();
  readonly #notifications = new Subject<Notification>();
  readonly #splitter: LineSplitter;
  #nextId = 1;
  #closed: Error | undefined;
  readonly closed: Promise<void>;

  /** Every notification from the agent, in wire order; completes when the agent's stdout ends. */
  readonly notifications: Observable<Notification> = this.#notifications.asObservable();

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter(options.maxLineBytes ?? defaultMaxLineBytes);
    options.input.on("data", (chunk: Buffer) => {
      for (const piece of this.#splitter.push(chunk)) this.#receive(piece);
    });
    this.closed = new Promise((resolve) => {
      const finish = () => {
        const last = this.#splitter.end();
        if (last !== undefined) this.#receive(last);
        this.#shutDown(new AgentExitedError());
        resolve();
      };
      options.input.once("end", finish);
      options.input.once("close", finish);
    });
    // Writing to a dead agent raises EPIPE on the stream; the read side reports the exit.
    options.output.on("error", (err) => options.logger.debug({ err }, "agent stdin write failed"));
  }

  /**
   * Sends a request and resolves with its result; `timeoutMs` undefined waits as long as the
   * connection lives. `onAnswer` runs synchronously when the answer (result or error) is read,
   * before any later line of the same read is handled — the promise settles only a microtask later.
   */
  request<R = unknown>(method: string, params: unknown, timeoutMs?: number, onAnswer?: () => void): Promise<R> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#pending.delete(id);
              reject(new AcpTimeoutError(method, timeoutMs));
            }, timeoutMs);
      this.#pending.set(id, { method, resolve: resolve as (result: unknown) => void, reject, timer, onAnswer });
      try {
        this.#write({ jsonrpc: "2.0", id, method, params });
      } catch (err) {
        this.#pending.delete(id);
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  notify(method: string, params: unknown): void {
    if (this.#closed === undefined) this.#write({ jsonrpc: "2.0", method, params });
  }

  /** Fails every waiting request with `reason` and stops emitting; the streams are left to their owner. */
  close(reason: Error = new AgentExitedError()): void {
    this.#shutDown(reason);
  }

  get isClosed(): boolean {
    return this.#closed !== undefined;
  }

  #receive(piece: ReturnType<LineSplitter["push"]>[number]): void {
    const { logger } = this.#options;
    if (piece.kind === "oversized") {
      logger.warn({ reason: "line_too_long", bytes: piece.bytes }, "agent stdout line dropped");
      return;
    }
    if (piece.line.trim() === "") return;
    const frame = parseFrame(piece.line, this.#options.redact);
    if (typeof frame === "string") {
      logger.warn({ reason: frame, sample: untrustedText(piece.line, { maxChars: sampleChars }) }, "agent stdout line dropped");
      return;
    }
    switch (frame.kind) {
      case "notification":
        this.#notifications.next({ method: frame.method, params: frame.params });
        return;
      case "request":
        this.#answer(frame.id, frame.method, frame.params);
        return;
      case "result":
      case "error": {
        const pending = frame.id === null ? undefined : this.#pending.get(frame.id);
        if (pending === undefined || frame.id === null) {
          logger.debug({ reason: "unknown_id", id: typeof frame.id === "string" ? untrustedName(frame.id) : frame.id }, "agent response ignored");
          return;
        }
        this.#pending.delete(frame.id);
        clearTimeout(pending.timer);
        pending.onAnswer?.();
        if (frame.kind === "result") pending.resolve(frame.result);
        else pending.reject(new AcpRequestError(pending.method, frame.error.code, frame.error.message, frame.error.data));
        return;
      }
    }
  }

  #answer(id: RpcId, method: string, params: unknown): void {
    const reply = (body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) =>
      this.#write({ jsonrpc: "2.0", id, ...body });
    const fail = (err: unknown) => {
      if (err instanceof RpcError) reply({ error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } });
      else {
        this.#options.logger.error({ err, method: untrustedName(method) }, "agent request handler failed");
        reply({ error: { code: rpcErrorCodes.internalError, message: "Internal error" } });
      }
    };
    const answer = (result: unknown) => {
      try {
        reply({ result: result ?? null });
      } catch (err) {
        // A result that cannot be serialized (BigInt, a cycle) must not become an unhandled rejection.
        fail(err);
      }
    };
    try {
      Promise.resolve(this.#options.onRequest(method, params)).then(answer, fail);
    } catch (err) {
      fail(err);
    }
  }

  #write(message: object): void {
    const { output } = this.#options;
    if (output.destroyed || !output.writable) return;
    output.write(`${JSON.stringify(message)}\n`);
  }

  #shutDown(reason: Error): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason;
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(reason);
      this.#pending.delete(id);
    }
    this.#notifications.complete();
  }
}
