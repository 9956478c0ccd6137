import { defer, EMPTY, of, type Observable } from "rxjs";
import type { HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import { HISTORY_MAX_BYTES } from "../../operators/ingress/prompt/historyBudget.js";
import { appendStep, removeStep, type HistoryKept, type HistoryRecord } from "./historyRecord.js";

/**
 * Group history (`[inbound] history_limit`): per conversation, the group messages that did not
 * mention the bot, kept until a turn packs them into its prompt. Shared by every worker on NATS;
 * `key` is the conversation (`platform:channel`). Each operation is cold: it runs once per
 * subscription. Errors with StateStoreError when the store cannot be reached.
 */
export interface HistoryStore {
  /**
   * Keeps one more message, at most `limit` and the store's byte budget (oldest dropped first);
   * emits what the budget dropped, once, and completes.
   */
  append(key: string, entry: HistoryEntry, limit: number): Observable<HistoryKept>;
  /** The kept messages, oldest first (none: `[]`). */
  read(key: string): Observable<readonly HistoryEntry[]>;
  /** Forgets the messages a turn packed; completes without a value. */
  remove(key: string, packed: readonly HistoryEntry[]): Observable<never>;
}

/**
 * A `HistoryStore` in one process's memory (the embedded bus). Conversations are dropped when
 * their history empties; the number kept is bounded by the conversations that wrote and were
 * never answered, each at most `limit` entries and `maxBytes` (default HISTORY_MAX_BYTES).
 */
export class MemoryHistoryStore implements HistoryStore {
  readonly #records = new Map<string, HistoryRecord>();
  readonly #maxBytes: number;

  constructor(options: { readonly maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? HISTORY_MAX_BYTES;
  }

  append(key: string, entry: HistoryEntry, limit: number): Observable<HistoryKept> {
    return defer(() => {
      const { result, next } = appendStep(this.#records.get(key), entry, limit, this.#maxBytes);
      this.#apply(key, next);
      return of(result);
    });
  }

  read(key: string): Observable<readonly HistoryEntry[]> {
    return defer(() => of(this.#records.get(key)?.entries ?? []));
  }

  remove(key: string, packed: readonly HistoryEntry[]): Observable<never> {
    return defer(() => {
      this.#apply(key, removeStep(this.#records.get(key), packed).next);
      return EMPTY;
    });
  }

  #apply(key: string, next: HistoryRecord | null | undefined): void {
    if (next === null) this.#records.delete(key);
    else if (next !== undefined) this.#records.set(key, next);
  }
}
