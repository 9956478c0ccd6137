import type { Socket } from "node:net";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MessageTooLargeError } from "./errors.js";

/** Answers waiting unread past this: stop reading the client's requests until it reads them. */
const UNREAD_ANSWERS_BYTES = 1024 * 1024;
/** After ending a connection, how long the client has to close its side before it is cut. */
const END_GRACE_MS = 2_000;
/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;

export interface SocketLineTransportOptions {
  /** Bound on one message, its newline excluded. */
  readonly maxMessageBytes: number;
  /** What came after the secret line, read before the transport started. */
  readonly head?: Buffer;
  /** A message went over `maxMessageBytes`: the client was told and the connection is ending. */
  readonly onTooLarge: (err: MessageTooLargeError) => void;
}

/**
 * MCP over one socket connection, framed as the SDK's stdio transport frames it (one JSON-RPC
 * message a line), for a client we cannot trust to behave: a message over the bound is answered
 * with a JSON-RPC error line (no `id`: the request's id comes after its body) and the connection
 * is ended, so the client learns why instead of hanging; a message's bytes are joined once, and
 * only new bytes are searched for its newline, so reading is linear in the input; and reading
 * pauses while the client leaves our answers unread, so it cannot make us buffer them.
 */
export class SocketLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #socket: Socket;
  readonly #options: SocketLineTransportOptions;
  /** The current message's bytes so far (no newline among them). */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** Ended (a message too large, or closed): what still arrives is dropped. */
  #ended = false;
  #closed = false;

  constructor(socket: Socket, options: SocketLineTransportOptions) {
    this.#socket = socket;
    this.#options = options;
  }

  start(): Promise<void> {
    this.#socket.on("data", this.#onData);
    this.#socket.once("close", () => void this.close());
    this.#socket.on("drain", this.#onDrain);
    const { head } = this.#options;
    if (head !== undefined && head.length > 0) this.#onData(head);
    this.#socket.resume();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#ended || !this.#socket.writable) return Promise.resolve();
    this.#socket.write(`${JSON.stringify(message)}\n`);
    if (this.#socket.writableLength > UNREAD_ANSWERS_BYTES) this.#socket.pause();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#ended = true;
    this.#parts = [];
    this.#socket.off("data", this.#onData);
    this.#socket.off("drain", this.#onDrain);
    this.#socket.destroy();
    this.onclose?.();
    return Promise.resolve();
  }

  readonly #onDrain = (): void => {
    if (!this.#ended) this.#socket.resume();
  };

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    while (!this.#ended) {
      const newline = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (this.#partBytes + piece.length > this.#options.maxMessageBytes) {
        this.#tooLarge();
        return;
      }
      if (newline === -1) {
        if (piece.length > 0) this.#parts.push(piece);
        this.#partBytes += piece.length;
        return;
      }
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts = [];
      this.#partBytes = 0;
      start = newline + 1;
      this.#deliver(line);
    }
  };

  #deliver(line: Buffer): void {
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  #tooLarge(): void {
    const { maxMessageBytes } = this.#options;
    this.#ended = true;
    this.#parts = [];
    this.#partBytes = 0;
    const answer = { jsonrpc: "2.0", error: { code: INVALID_REQUEST, message: `Message too large: over ${maxMessageBytes} bytes; the connection is closed` } };
    // Read on and drop the rest, so the client's writes do not block before it sees our answer and end.
    this.#socket.resume();
    this.#socket.end(`${JSON.stringify(answer)}\n`);
    setTimeout(() => this.#socket.destroy(), END_GRACE_MS).unref();
    this.#options.onTooLarge(new MessageTooLargeError(maxMessageBytes));
  }
}
