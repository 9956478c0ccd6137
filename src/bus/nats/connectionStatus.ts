import type { NatsConnection, Status } from "@nats-io/transport-node";
import { Observable } from "rxjs";

/**
 * A change of the NATS connection worth acting on. While `disconnected`, publishes are buffered
 * and acks may be lost (the server redelivers after its ack wait); `reconnected` means the client
 * has resubscribed everything. `lame_duck`: the server announced it is shutting down. `stale`: the
 * server stopped answering pings and the client is reconnecting.
 */
export type BusConnectionStatus =
  | { readonly type: "disconnected"; readonly server: string }
  | { readonly type: "reconnecting" }
  | { readonly type: "reconnected"; readonly server: string }
  | { readonly type: "lame_duck"; readonly server: string }
  | { readonly type: "stale" }
  | { readonly type: "error"; readonly error: Error };

/** The bus's view of a client status event; undefined for routine ones (pings, cluster updates, slow consumers). */
export function connectionStatus(status: Status): BusConnectionStatus | undefined {
  switch (status.type) {
    case "disconnect":
      return { type: "disconnected", server: status.server };
    case "reconnecting":
      return { type: "reconnecting" };
    case "reconnect":
      return { type: "reconnected", server: status.server };
    case "ldm":
      return { type: "lame_duck", server: status.server };
    case "staleConnection":
      return { type: "stale" };
    case "error":
      return { type: "error", error: status.error };
    default:
      return undefined;
  }
}

/** Status changes of `nc` for as long as subscribed; completes when the connection closes. */
export function statusChanges(nc: NatsConnection): Observable<BusConnectionStatus> {
  // A custom Observable: the client's status iterator must be stopped on unsubscribe, which `from()` does not do.
  return new Observable<BusConnectionStatus>((subscriber) => {
    if (nc.isClosed()) {
      subscriber.complete();
      return;
    }
    const iterator = nc.status();
    void (async () => {
      for await (const status of iterator) {
        const change = connectionStatus(status);
        if (change !== undefined) subscriber.next(change);
      }
    })();
    void nc.closed().then(() => subscriber.complete());
    return () => stopIterator(iterator);
  });
}

function stopIterator(iterator: AsyncIterable<Status>): void {
  // `nc.status()` is typed as a plain AsyncIterable but is the client's stoppable QueuedIterator.
  const stoppable = iterator as Partial<{ stop(): void }>;
  stoppable.stop?.();
}
