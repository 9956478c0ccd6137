import { concat, defer, EMPTY, ignoreElements, lastValueFrom, Observable, of } from "rxjs";
import { historyEntry, type HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import { compositeKey } from "../../operators/dispatch/compositeKey.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { isGroupChannel } from "../../operators/ingress/groupChannel.js";
import { threadIdOf } from "../../operators/ingress/threadIdOf.js";
import type { Logger } from "../log/logger.js";
import type { HistoryKept } from "../state/historyRecord.js";
import type { HistoryStore } from "../state/historyStore.js";

/**
 * Group history (`[inbound] history_limit`, OpenClaw's group history): the messages of a group
 * conversation that did not mention the bot are kept, and the conversation's next turn packs them
 * into its prompt. Kept in `store` (in memory, or NATS KV shared by every worker). Appends of one
 * conversation are written in arrival order, and a turn reads its history only after every append
 * this process took before it was written — the events come off the turn stream in order, so the
 * mention's turn sees the messages that came before it. Messages dropped to keep a conversation's
 * history within its byte budget are logged.
 */
export class GroupHistory {
  readonly #store: HistoryStore;
  readonly #limit: number;
  readonly #logger: Logger;
  /** Per conversation, the last append this process started, until it settles. */
  readonly #pending = new Map<string, Promise<void>>();

  constructor(store: HistoryStore, limit: number, logger: Logger) {
    this.#store = store;
    this.#limit = limit;
    this.#logger = logger;
  }

  /** Keeps a history event (`event.history`); completes once it is written, errors when the store failed. */
  keep(event: GatewayEvent): Observable<never> {
    return new Observable<never>((subscriber) => {
      const key = conversationOf(event);
      const entry = historyEntry(event);
      const before = this.#pending.get(key) ?? Promise.resolve();
      // A failed append does not hold the next one back: the failed one is handed back and comes again.
      const written = before.then(async () => this.#overBudget(event, await lastValueFrom(this.#store.append(key, entry, this.#limit))));
      const settled = written.then(
        () => undefined,
        () => undefined,
      );
      this.#pending.set(key, settled);
      void settled.then(() => {
        if (this.#pending.get(key) === settled) this.#pending.delete(key);
      });
      written.then(
        () => subscriber.complete(),
        (err: unknown) => subscriber.error(err),
      );
    });
  }

  #overBudget(event: GatewayEvent, { dropped, bytes, budget }: HistoryKept): void {
    if (dropped === 0) return;
    this.#logger.info({ reason: "history_over_budget", sessionKey: sessionKey(event), event_id: event.event_id, dropped, bytes, budget }, "group history over its byte budget; oldest dropped");
  }

  /** The history a turn of `event` packs, oldest first: none outside a group conversation's main channel. */
  forTurn(event: GatewayEvent): Observable<readonly HistoryEntry[]> {
    if (!hasHistory(event)) return of([]);
    const key = conversationOf(event);
    return defer(() => {
      const pending = this.#pending.get(key);
      const read = this.#store.read(key);
      return pending === undefined ? read : concat(defer(() => pending).pipe(ignoreElements()), read);
    });
  }

  /** After the turn completed: forgets what it packed (messages that arrived meanwhile stay for the next one). */
  packed(event: GatewayEvent, entries: readonly HistoryEntry[]): Observable<never> {
    return entries.length === 0 ? EMPTY : this.#store.remove(conversationOf(event), entries);
  }
}

/** Where history can be: a group's main channel, the only place mentions are required. */
function hasHistory(event: GatewayEvent): boolean {
  return isGroupChannel(event.channel) && threadIdOf(event.channel) === undefined;
}

/** The conversation a history belongs to: `platform:channel`. */
function conversationOf(event: GatewayEvent): string {
  return compositeKey([event.platform, event.channel.id]);
}
