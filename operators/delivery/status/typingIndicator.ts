import { asyncScheduler, connect, endWith, ignoreElements, takeUntil, timer, type OperatorFunction, type SchedulerLike } from "rxjs";

/**
 * How often "typing…" is renewed while a turn runs. Telegram shows a chat action for 5 s (or until
 * the bot's next message arrives); renewing every 4 s keeps it on without a gap, with a second
 * left for the request to get there.
 */
export const TYPING_RENEW_MS = 4_000;

export interface TypingIndicatorOptions {
  /** Default `TYPING_RENEW_MS`. */
  readonly intervalMs?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * "Typing…" while a turn runs: the source is the turn's running span — subscribed when the turn
 * starts, ending when it ends — and each tick (0, 1, 2, …) is one typing indicator to send: the
 * first right after the start (scheduled, not within the call: a span that ends within that call
 * shows nothing), then one every `intervalMs` until the span completes or errors (the error passes
 * on), and nothing after. The span's values (the turn's messages, say) change nothing: between two
 * bubbles the indicator keeps being renewed, as a person is typing the next one. Time comes from
 * `scheduler`.
 */
export function typingIndicator(options: TypingIndicatorOptions = {}): OperatorFunction<unknown, number> {
  const { intervalMs = TYPING_RENEW_MS, scheduler = asyncScheduler } = options;
  // `connect`: the span is subscribed once, after the ticks are listening for its end.
  return connect((span) => timer(0, intervalMs, scheduler).pipe(takeUntil(span.pipe(ignoreElements(), endWith(true)))));
}
