import type { Socket } from "node:net";
import { parseRequestHead, type RequestHead } from "./requestHead.js";
import type { RefusalReason } from "./refusalLog.js";

/** What the listener answers one request with. */
export interface Answer {
  readonly status: 200 | 404 | 405 | 500 | 503;
  readonly contentType: string;
  /** Shared between answers where it can be (one collection's exposition): written, never copied. */
  readonly body: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ConnectionLimits {
  /** A request head (request line and headers) larger than this is refused with 431. */
  readonly maxHeadBytes: number;
  /** From a head's first byte to its end; longer is refused with 408. */
  readonly headersTimeoutMs: number;
  /** A connection waiting for its next request longer than this is closed. */
  readonly keepAliveTimeoutMs: number;
  /** A client that reads none of its answer for this long is cut off. */
  readonly stalledClientMs: number;
}

export interface ConnectionEvents {
  /** The answer to a request; a promise while the metrics are collected. */
  readonly respond: (request: RequestHead) => Answer | Promise<Answer>;
  readonly refused: (reason: RefusalReason, fields?: Record<string, unknown>) => void;
  /** A request was read or answered (the connection list's order of activity). */
  readonly active: (connection: ListenerConnection) => void;
}

/** Bytes read and not yet taken as heads, beyond which the socket stops reading. */
const MAX_BUFFERED = 16 * 1024;
const REASONS: Readonly<Record<number, string>> = { 200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 431: "Request Header Fields Too Large", 500: "Internal Server Error", 503: "Service Unavailable" };
const HEAD_END = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);

/**
 * One client connection of the metrics listener, read one request at a time: the next request's
 * head is taken only once the answer before it was written, and in a later turn of the event
 * loop. A client pipelining thousands of requests costs one request per turn, like any other;
 * what it sent beyond stays in the socket, where TCP holds it back. Node's HTTP server parses a
 * whole read (up to 64 KB of requests) at once, at 15–30 µs a request, so it cannot bound this.
 */
export class ListenerConnection {
  readonly socket: Socket;
  readonly #limits: ConnectionLimits;
  readonly #events: ConnectionEvents;
  /** Bytes read and not taken yet: `#bytes[#start, #end)`; the first `#scanned` of them hold no head's end. */
  #bytes = EMPTY;
  #start = 0;
  #end = 0;
  #scanned = 0;
  /** A request is being answered (collected, or its answer still being written). */
  #answering = false;
  /** The client sent its last byte. */
  #ended = false;
  /** The last answer was written with `connection: close`, or the client was refused: nothing more is read. */
  #closing = false;
  #headTimer: NodeJS.Timeout | undefined;
  #turn: NodeJS.Immediate | undefined;

  constructor(socket: Socket, limits: ConnectionLimits, events: ConnectionEvents) {
    this.socket = socket;
    this.#limits = limits;
    this.#events = events;
    socket.on("data", (chunk: Buffer) => this.#read(chunk));
    socket.on("end", () => {
      this.#ended = true;
      this.#next();
    });
    // A reset or a broken pipe: the client is gone, nothing to answer or log.
    socket.on("error", () => socket.destroy());
    socket.on("timeout", () => this.#timedOut());
    socket.on("close", () => {
      clearTimeout(this.#headTimer);
      if (this.#turn !== undefined) clearImmediate(this.#turn);
    });
    socket.setTimeout(limits.keepAliveTimeoutMs);
  }

  /** Answering a request while more of the client's requests wait behind it (it pipelines). */
  get pipelining(): boolean {
    return this.#answering && this.#end > this.#start;
  }

  /** Neither answering nor holding a whole request: between requests, or still receiving one. */
  get idle(): boolean {
    return !this.#answering;
  }

  #read(chunk: Buffer): void {
    if (this.#closing) return;
    this.#append(chunk);
    if (this.#end - this.#start > MAX_BUFFERED) this.socket.pause();
    this.#next();
  }

  /** Takes and answers the next whole request, unless one is being answered. */
  #next(): void {
    if (this.#answering || this.#closing || this.socket.destroyed) return;
    const head = this.#takeHead();
    if (head === undefined) {
      const buffered = this.#end - this.#start;
      if (buffered > this.#limits.maxHeadBytes) this.#refuse(431, "bad_request", { bad: "head_too_large" });
      else if (this.#ended) this.socket.destroySoon();
      else if (buffered > 0) this.#headTimer ??= setTimeout(() => this.#refuse(408, "headers_timeout"), this.#limits.headersTimeoutMs);
      return;
    }
    clearTimeout(this.#headTimer);
    this.#headTimer = undefined;
    if (this.#end - this.#start <= MAX_BUFFERED) this.socket.resume();
    const request = parseRequestHead(head);
    if ("bad" in request) {
      this.#refuse(400, "bad_request", { bad: request.bad });
      return;
    }
    this.#answering = true;
    this.socket.setTimeout(0);
    this.#events.active(this);
    let answer: Answer | Promise<Answer>;
    try {
      answer = this.#events.respond(request);
    } catch {
      // `respond` answers every request; a throw would be a bug, and must end only this connection.
      this.socket.destroy();
      return;
    }
    if (answer instanceof Promise) {
      answer.then(
        (ready) => this.#write(request, ready),
        () => this.socket.destroy(),
      );
    } else {
      this.#write(request, answer);
    }
  }

  /** The head of the first request read (latin1, without its blank line), or undefined while it is incomplete. */
  #takeHead(): string | undefined {
    const live = this.#bytes.subarray(this.#start, this.#end);
    // Search only what was not searched yet (less 3 bytes, for an end split across two reads): linear in what was read.
    const at = live.indexOf(HEAD_END, Math.max(0, this.#scanned - 3));
    if (at === -1 || at > this.#limits.maxHeadBytes) {
      this.#scanned = live.length;
      return undefined;
    }
    const head = live.toString("latin1", 0, at);
    this.#start += at + HEAD_END.length;
    this.#scanned = 0;
    if (this.#start === this.#end) {
      this.#start = this.#end = 0;
      // A burst of pipelined requests grew the buffer: let it go once it is spent.
      if (this.#bytes.length > MAX_BUFFERED) this.#bytes = EMPTY;
    }
    return head;
  }

  /** Appends a read: compacts when half the room is free, else grows by doubling (amortized linear). */
  #append(chunk: Buffer): void {
    const live = this.#end - this.#start;
    if (this.#end + chunk.length > this.#bytes.length) {
      if ((live + chunk.length) * 2 <= this.#bytes.length) {
        this.#bytes.copyWithin(0, this.#start, this.#end);
      } else {
        const grown = Buffer.allocUnsafe(Math.max(1024, (live + chunk.length) * 2));
        this.#bytes.copy(grown, 0, this.#start, this.#end);
        this.#bytes = grown;
      }
      this.#start = 0;
      this.#end = live;
    }
    chunk.copy(this.#bytes, this.#end);
    this.#end += chunk.length;
  }

  #write(request: RequestHead, answer: Answer): void {
    const { socket } = this;
    if (socket.destroyed) return;
    const keepAlive = request.keepAlive && !request.hasBody;
    socket.cork();
    socket.write(headLines(answer.status, answer.contentType, answer.body.length, keepAlive, answer.headers));
    if (request.method !== "HEAD") socket.write(answer.body);
    socket.uncork();
    this.#events.active(this);
    if (!keepAlive) {
      this.#closing = true;
      // Closed once the answer is out, whether or not the client closes its side; a client that
      // does not read it is cut off as stalled.
      socket.setTimeout(this.#limits.stalledClientMs);
      socket.destroySoon();
      return;
    }
    if (socket.writableNeedDrain) {
      socket.setTimeout(this.#limits.stalledClientMs);
      socket.once("drain", () => this.#answered());
    } else {
      this.#answered();
    }
  }

  /** The answer left: the next request is read in the next turn of the loop, not in this one. */
  #answered(): void {
    this.#answering = false;
    this.socket.setTimeout(this.#limits.keepAliveTimeoutMs);
    this.#turn = setImmediate(() => {
      this.#turn = undefined;
      this.#next();
    });
  }

  /** The socket was inactive for its timeout. */
  #timedOut(): void {
    if (this.#answering) {
      // Its answer is not being read: the client stalled.
      this.#events.refused("stalled_client");
      this.socket.destroy();
    } else if (this.#closing) {
      // Refused already, and the refusal not read.
      this.socket.destroy();
    } else if (this.#end > this.#start) {
      // Part of a head, then silence.
      this.#refuse(408, "headers_timeout");
    } else {
      // A keep-alive connection between requests: ends quietly.
      this.socket.destroy();
    }
  }

  /** Answers a request the listener cannot read with `status`, and closes. */
  #refuse(status: 400 | 408 | 431, reason: RefusalReason, fields?: Record<string, unknown>): void {
    this.#closing = true;
    this.#events.refused(reason, fields);
    // Nothing is owed on this connection: whatever it sent before was answered in full.
    this.socket.end(headLines(status, "text/plain; charset=utf-8", 0, false));
    this.socket.destroySoon();
  }
}

function headLines(status: number, contentType: string, length: number, keepAlive: boolean, headers: Readonly<Record<string, string>> = {}): string {
  let lines = `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\ncontent-type: ${contentType}\r\ncontent-length: ${length}\r\ncache-control: no-store\r\ndate: ${httpDate()}\r\nconnection: ${keepAlive ? "keep-alive" : "close"}\r\n`;
  for (const [name, value] of Object.entries(headers)) lines += `${name}: ${value}\r\n`;
  return `${lines}\r\n`;
}

let dateSecond = 0;
let dateText = "";
/** The `date` header, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}
