/** Logged (at most every few seconds, with a count) when the cap closes connections. */
export const MCP_CONNECTION_LIMIT_LOG = "reply tool connection closed: too many open";

/** A connection the limit can close: a socket. */
export interface Closable {
  destroy(): void;
}

/**
 * How many connections one reply tool endpoint keeps open: an agent session holds about one
 * (its `turnstream mcp` relay, or its HTTP client's keep-alive socket), so twice the pool's
 * sessions, plus room for ones closing while their successors open.
 */
export function connectionLimitFor(maxSessions: number): number {
  return 32 + 2 * maxSessions;
}

/**
 * A cap on one endpoint's open connections. Our own clients authenticate at once (the first
 * request or line carries the session's secret), so when the cap is reached the oldest connection
 * that has not authenticated yet is closed to make room; only when every open connection is
 * authenticated is the new one refused. Connections that never authenticate therefore hold at
 * most `limit` descriptors and cannot lock the agents out. `onClosed` hears each connection the
 * cap closed.
 */
export class ConnectionLimit<C extends Closable = Closable> {
  readonly limit: number;
  /** In arrival order: the first is the oldest. */
  readonly #pending = new Set<C>();
  readonly #trusted = new Set<C>();
  readonly #onClosed: () => void;

  constructor(limit: number, onClosed: () => void) {
    this.limit = limit;
    this.#onClosed = onClosed;
  }

  get open(): number {
    return this.#pending.size + this.#trusted.size;
  }

  /** Counts a new connection in, closing the oldest unauthenticated one to make room; false (and the connection closed) when there is none. */
  admit(connection: C): boolean {
    if (this.open >= this.limit) {
      const oldest = this.#pending.values().next();
      if (oldest.done === true) {
        connection.destroy();
        this.#onClosed();
        return false;
      }
      this.#pending.delete(oldest.value);
      oldest.value.destroy();
      this.#onClosed();
    }
    this.#pending.add(connection);
    return true;
  }

  /** The connection presented a live secret: the cap no longer closes it to make room. */
  trust(connection: C): void {
    if (this.#pending.delete(connection)) this.#trusted.add(connection);
  }

  /** The connection closed. */
  release(connection: C): void {
    this.#pending.delete(connection);
    this.#trusted.delete(connection);
  }

  closeAll(): void {
    for (const connection of [...this.#pending, ...this.#trusted]) connection.destroy();
    this.#pending.clear();
    this.#trusted.clear();
  }
}
