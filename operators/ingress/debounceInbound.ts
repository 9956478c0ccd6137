import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from "rxjs";
import type { GatewayEvent } from "./gatewayEvent.js";
import { isControlCommand } from "./controlCommand.js";
import { threadIdOf } from "./threadIdOf.js";

export interface DebounceInboundOptions {
  /** Quiet window per key; 0 turns debouncing off. */
  readonly debounceMs: number;
  /** Per-platform windows (`[inbound] debounce_by_platform`), overriding `debounceMs`. */
  readonly byPlatform?: Readonly<Record<string, number>>;
  readonly maxMessages?: number;
  readonly maxChars?: number;
  /** Keys tracked at once; past it, new keys run immediately. */
  readonly maxKeys?: number;
  readonly scheduler?: SchedulerLike;
  /**
   * Told how many events were folded into the one about to be emitted (its batch's size less one),
   * when any were, with the batch's events and the merged event that stands for them.
   */
  readonly onMerged?: (folded: number, events: readonly GatewayEvent[], merged: GatewayEvent) => void;
}

interface Batch {
  readonly events: GatewayEvent[];
  chars: number;
  quiet: Subscription | undefined;
  readonly deadline: Subscription;
}

/**
 * Merges rapid text messages from one sender in one conversation into one event: each message
 * re-arms a quiet window of `debounceMs`; a hard deadline of 5 × `debounceMs` from the first message
 * flushes anyway, so sustained typing cannot starve a turn. The merged event carries the texts
 * joined with "\n" and the last message's ids (the turn replies to it). Messages with attachments,
 * control commands, proactive events, group history and taps are never held: they flush their key's
 * batch first, then pass. At most `maxMessages` (12) / `maxChars` (50,000) per batch.
 *
 * Hand-written: the quiet window and the deadline are two timers per key, which `debounceTime`
 * cannot express.
 */
export function debounceInbound(options: DebounceInboundOptions): OperatorFunction<GatewayEvent, GatewayEvent> {
  const { maxMessages = 12, maxChars = 50_000, maxKeys = 2048, scheduler = asyncScheduler } = options;
  const windowOf = (event: GatewayEvent) => options.byPlatform?.[event.platform] ?? options.debounceMs;
  return (source) =>
    new Observable<GatewayEvent>((subscriber) => {
      const batches = new Map<string, Batch>();
      const flush = (key: string): void => {
        const batch = batches.get(key);
        if (batch === undefined) return;
        batches.delete(key);
        batch.quiet?.unsubscribe();
        batch.deadline.unsubscribe();
        const merged = merge(batch.events);
        if (batch.events.length > 1) options.onMerged?.(batch.events.length - 1, batch.events, merged);
        subscriber.next(merged);
      };
      const subscription = source.subscribe({
        next: (event) => {
          const windowMs = windowOf(event);
          if (windowMs <= 0 || !debounceable(event)) {
            // No batch held, nothing to flush: the key is not worth building (debounce off, the usual case).
            if (batches.size > 0) flush(debounceKey(event));
            subscriber.next(event);
            return;
          }
          const key = debounceKey(event);
          let batch = batches.get(key);
          const chars = event.content.text.length;
          if (batch !== undefined && (batch.events.length >= maxMessages || batch.chars + chars > maxChars)) {
            flush(key);
            batch = undefined;
          }
          if (batch === undefined) {
            if (batches.size >= maxKeys) {
              subscriber.next(event);
              return;
            }
            batch = { events: [], chars: 0, quiet: undefined, deadline: scheduler.schedule(() => flush(key), windowMs * 5) };
            batches.set(key, batch);
          }
          batch.events.push(event);
          batch.chars += chars;
          batch.quiet?.unsubscribe();
          batch.quiet = scheduler.schedule(() => flush(key), windowMs);
          if (batch.events.length >= maxMessages) flush(key);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          for (const key of [...batches.keys()]) flush(key);
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        for (const batch of batches.values()) {
          batch.quiet?.unsubscribe();
          batch.deadline.unsubscribe();
        }
        batches.clear();
      };
    });
}

/** (platform, channel, thread, sender): one batch per person per conversation. */
export function debounceKey(event: GatewayEvent): string {
  return JSON.stringify([event.platform, event.channel.id, threadIdOf(event.channel) ?? "", event.sender.id]);
}

function debounceable(event: GatewayEvent): boolean {
  return (
    event.proactive !== true &&
    event.history !== true &&
    // A tap on a button answers a question now: never held, never merged (whatever text it carries).
    event.tap === undefined &&
    event.content.text.trim() !== "" &&
    (event.content.attachments ?? []).length === 0 &&
    !isControlCommand(event.content.text)
  );
}

/** One event for a batch: the last message with every message's text, in order. */
function merge(events: readonly GatewayEvent[]): GatewayEvent {
  const last = events[events.length - 1] as GatewayEvent;
  if (events.length === 1) return last;
  return { ...last, content: { ...last.content, text: events.map((event) => event.content.text).join("\n") } };
}
