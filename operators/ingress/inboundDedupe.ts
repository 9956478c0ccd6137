import { flatString } from "./frames/flatString.js";
import type { GatewayEvent } from "./gatewayEvent.js";
import { threadIdOf } from "./threadIdOf.js";

/**
 * The redelivery key of a message a human sent: (platform, channel, thread, message_id) as a JSON
 * array. A message without a `message_id` has no key and is never deduplicated.
 */
export function inboundDedupeKey(event: Pick<GatewayEvent, "platform" | "channel" | "message_id">): string | undefined {
  if (event.message_id === "") return undefined;
  return JSON.stringify([event.platform, event.channel.id, threadIdOf(event.channel) ?? "", event.message_id]);
}

export type Claim = "claimed" | "duplicate" | "inflight";

/**
 * OpenClaw's inbound dedupe, done right: a message is *claimed* while its turn runs, *committed*
 * when the turn finished (a redelivery is then a duplicate for `ttlMs`, and seeing it again refreshes
 * that window), and *released* when the turn failed (so a redelivery can run it). At most `max`
 * committed keys are kept (oldest first out), each as a flat copy (`flatString`; `JSON.stringify`
 * makes a rope). Time is passed in, never read: pure and testable.
 *
 * An optional `owner` (the event's `platform:event_id`) tells a redelivery of the same event from
 * another event carrying the same message: the same owner claims its own in-flight key again (its
 * first run died; the delivery ledger decides what to repeat), and only the owner may release it.
 */
export class InboundDedupe {
  readonly #ttlMs: number;
  readonly #max: number;
  /** Committed keys → when last seen, and the number of the touch that said so. */
  readonly #seen = new Map<string, { readonly at: number; readonly touch: number }>();
  /**
   * Touches, oldest first (from `#head`): the LRU order. A key touched again leaves a stale entry
   * behind, skipped on eviction. (Not the Map's own order: taking its first key walks every slot
   * deleted before it, which costs microseconds per eviction once it has churned.)
   */
  #order: { readonly key: string; readonly touch: number }[] = [];
  #head = 0;
  #touches = 0;
  /** In-flight keys → their owner (`undefined`: claimed without one). */
  readonly #inflight = new Map<string, string | undefined>();

  constructor(options: { readonly ttlMs: number; readonly max: number }) {
    this.#ttlMs = options.ttlMs;
    this.#max = options.max;
  }

  claim(key: string, nowMs: number, owner?: string): Claim {
    if (this.#inflight.has(key)) return owner !== undefined && this.#inflight.get(key) === owner ? "claimed" : "inflight";
    const seenAt = this.#seen.get(key)?.at;
    if (seenAt !== undefined && nowMs - seenAt < this.#ttlMs) {
      this.#touch(key, nowMs); // a redelivery extends the window
      return "duplicate";
    }
    this.#seen.delete(key);
    this.#inflight.set(key, owner);
    return "claimed";
  }

  commit(key: string, nowMs: number): void {
    this.#inflight.delete(key);
    if (this.#ttlMs <= 0 || this.#max <= 0) return;
    this.#touch(key, nowMs);
    while (this.#seen.size > this.#max && this.#head < this.#order.length) {
      const oldest = this.#order[this.#head] as { key: string; touch: number };
      this.#head += 1;
      if (this.#seen.get(oldest.key)?.touch === oldest.touch) this.#seen.delete(oldest.key);
    }
    this.#compact();
  }

  /** Frees an in-flight key; with an `owner`, only if that owner claimed it. */
  release(key: string, owner?: string): void {
    if (owner === undefined || this.#inflight.get(key) === owner) this.#inflight.delete(key);
  }

  /** Whether `key` is committed and fresh, without refreshing it. */
  peek(key: string, nowMs: number): boolean {
    const seenAt = this.#seen.get(key)?.at;
    return seenAt !== undefined && nowMs - seenAt < this.#ttlMs;
  }

  get size(): number {
    return this.#seen.size;
  }

  #touch(key: string, nowMs: number): void {
    const touch = ++this.#touches;
    const kept = flatString(key);
    this.#seen.set(kept, { at: nowMs, touch });
    this.#order.push({ key: kept, touch });
  }

  /** Drops consumed and stale touches once they make up most of the order. */
  #compact(): void {
    if (this.#order.length - this.#head <= 2 * this.#seen.size + 1024 && this.#head < 1024) return;
    this.#order = this.#order.slice(this.#head).filter(({ key, touch }) => this.#seen.get(key)?.touch === touch);
    this.#head = 0;
  }
}
