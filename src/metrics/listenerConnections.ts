import type { Socket } from "node:net";
import { ListenerConnection, type ConnectionEvents, type ConnectionLimits } from "./listenerConnection.js";

/** What `connectionToClose` weighs of an open connection. */
export interface ConnectionState {
  /** Answering a request while more of its requests wait behind it. */
  readonly pipelining: boolean;
  /** Neither answering nor holding a whole request. */
  readonly idle: boolean;
}

/**
 * Which connection to close for a new one when the listener is at its limit, given the open ones
 * from the least to the most recently active: one that pipelines (neither Prometheus nor a kubelet
 * ever has a second request outstanding); else the longest idle one (a keep-alive between scrapes,
 * or a client still dribbling its headers); else none, and the new one is refused. A probe's fresh
 * connection is idle but the most recent, so a flood of connections reaches it last.
 */
export function connectionToClose<C extends ConnectionState>(open: Iterable<C>): C | undefined {
  let idle: C | undefined;
  for (const connection of open) {
    if (connection.pipelining) return connection;
    idle ??= connection.idle ? connection : undefined;
  }
  return idle;
}

/**
 * The listener's open connections, at most `limit`: one beyond closes the one `connectionToClose`
 * names, or is itself refused. Kept in order of activity (a request read or answered moves its
 * connection to the end), which is the order `connectionToClose` reads.
 */
export class ListenerConnections {
  readonly limit: number;
  readonly #open = new Set<ListenerConnection>();
  readonly #limits: ConnectionLimits;
  readonly #events: Omit<ConnectionEvents, "active">;

  constructor(limit: number, limits: ConnectionLimits, events: Omit<ConnectionEvents, "active">) {
    this.limit = limit;
    this.#limits = limits;
    this.#events = events;
  }

  get size(): number {
    return this.#open.size;
  }

  /** An accepted socket: served, or refused when over the limit with no connection to close. */
  admit(socket: Socket): void {
    if (this.#open.size >= this.limit) {
      const victim = connectionToClose(this.#open);
      this.#events.refused("connection_limit", { limit: this.limit });
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      this.#open.delete(victim);
      victim.socket.destroy();
    }
    const connection = new ListenerConnection(socket, this.#limits, {
      ...this.#events,
      active: (active) => {
        // Re-inserting moves it to the end: the set stays in order of activity.
        if (this.#open.delete(active)) this.#open.add(active);
      },
    });
    this.#open.add(connection);
    socket.once("close", () => this.#open.delete(connection));
  }

  /** Ends every connection (the listener closes). */
  destroyAll(): void {
    for (const connection of this.#open) connection.socket.destroy();
    this.#open.clear();
  }
}
