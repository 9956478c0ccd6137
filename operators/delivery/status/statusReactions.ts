import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from "rxjs";

/** What happened in a turn, as far as the status reaction on the user's message cares. */
export type ReactionSignal =
  | { readonly type: "queued" }
  | { readonly type: "thinking" }
  | { readonly type: "tool"; readonly name: string }
  /** Any other update: restarts the stall timers only. */
  | { readonly type: "activity" }
  | { readonly type: "done" }
  | { readonly type: "error" };

/** One `add_reaction` / `remove_reaction` command on the user's message. */
export interface ReactionChange {
  readonly op: "add" | "remove";
  readonly emoji: string;
}

/** `[reactions.emojis]`. */
export interface ReactionEmojis {
  readonly queued: string;
  readonly thinking: string;
  readonly tool: string;
  readonly coding: string;
  readonly web: string;
  readonly done: string;
  readonly error: string;
}

export interface StatusReactionsOptions {
  readonly emojis: ReactionEmojis;
  /** `[reactions.timing]`, in ms. */
  readonly debounceMs: number;
  readonly stallSoftMs: number;
  readonly stallHardMs: number;
  readonly doneHoldMs: number;
  readonly errorHoldMs: number;
  /** `[reactions] remove_after_reply`: clear the final reaction after its hold. */
  readonly removeAfterReply: boolean;
  /** 0 ≤ x < 1; picks the done face (injected so tests are deterministic); default Math.random. */
  readonly random?: () => number;
  readonly scheduler?: SchedulerLike;
}

export const STALL_SOFT_EMOJI = "🥱";
export const STALL_HARD_EMOJI = "😨";
export const DONE_FACES = ["😊", "😎", "🫡", "🤓", "😏", "✌️", "💪", "🦾"] as const;

const WEB_TOKENS = ["web_search", "web_fetch", "web-search", "web-fetch", "browser"];
const CODING_TOKENS = ["exec", "process", "read", "write", "edit", "bash", "shell"];

/**
 * The reaction for a tool, as upstream classifies its name (or title): web if the lowercased name
 * contains web_search, web_fetch, web-search, web-fetch or browser; else coding if it contains
 * exec, process, read, write, edit, bash or shell; else tool.
 */
export function toolReaction(name: string, emojis: ReactionEmojis): string {
  const lower = name.toLowerCase();
  if (WEB_TOKENS.some((token) => lower.includes(token))) return emojis.web;
  if (CODING_TOKENS.some((token) => lower.includes(token))) return emojis.coding;
  return emojis.tool;
}

/**
 * One turn's status reaction, as upstream's state machine: `queued` shows at once; `thinking` and
 * `tool` show `debounceMs` later (a newer one replaces a pending one); every signal but `done` /
 * `error` restarts two stall timers, 🥱 after `stallSoftMs` and 😨 after `stallHardMs`. `done`
 * shows the done emoji plus a random face (never removed), `error` the error emoji; after either,
 * signals are ignored and, with `removeAfterReply`, the final emoji is removed `doneHoldMs` /
 * `errorHoldMs` later. A change adds the new emoji, then removes the old one. Completes when the
 * input has and no hold is pending; an input that completes before `done` / `error` drops its
 * pending changes. Time comes from `scheduler`, so marble tests assert every timer exactly.
 *
 * Hand-written: up to four timers (debounce, two stalls, hold) share one `current` emoji and one
 * `finished` flag, which composing standard operators cannot express readably.
 */
export function statusReactions(options: StatusReactionsOptions): OperatorFunction<ReactionSignal, ReactionChange> {
  const { emojis, removeAfterReply, random = Math.random, scheduler = asyncScheduler } = options;
  return (signals) =>
    new Observable<ReactionChange>((subscriber) => {
      let current = "";
      let finished = false;
      let inputDone = false;
      let debounce: Subscription | undefined;
      let stallSoft: Subscription | undefined;
      let stallHard: Subscription | undefined;
      let hold: Subscription | undefined;

      const change = (emoji: string): void => {
        subscriber.next({ op: "add", emoji });
        if (current !== "" && current !== emoji) subscriber.next({ op: "remove", emoji: current });
        current = emoji;
      };
      const cancelDebounce = (): void => {
        debounce?.unsubscribe();
        debounce = undefined;
      };
      const cancelStall = (): void => {
        stallSoft?.unsubscribe();
        stallHard?.unsubscribe();
        stallSoft = stallHard = undefined;
      };
      const cancelAll = (): void => {
        cancelDebounce();
        cancelStall();
        hold?.unsubscribe();
        hold = undefined;
      };
      // Both from the same moment: the hard stall is not counted from the soft one.
      const restartStall = (): void => {
        cancelStall();
        stallSoft = scheduler.schedule(() => {
          if (!finished) change(STALL_SOFT_EMOJI);
        }, options.stallSoftMs);
        stallHard = scheduler.schedule(() => {
          if (!finished) change(STALL_HARD_EMOJI);
        }, options.stallHardMs);
      };
      const debounced = (emoji: string): void => {
        if (emoji !== current) {
          cancelDebounce();
          debounce = scheduler.schedule(() => {
            debounce = undefined;
            if (!finished) change(emoji);
          }, options.debounceMs);
        }
        restartStall();
      };
      const finish = (emoji: string, face: string | undefined, holdMs: number): void => {
        finished = true;
        cancelDebounce();
        cancelStall();
        change(emoji);
        if (face !== undefined) subscriber.next({ op: "add", emoji: face });
        if (!removeAfterReply) return;
        hold = scheduler.schedule(() => {
          hold = undefined;
          subscriber.next({ op: "remove", emoji: current });
          current = "";
          if (inputDone) subscriber.complete();
        }, holdMs);
      };

      const subscription = signals.subscribe({
        next: (signal) => {
          if (finished) return;
          switch (signal.type) {
            case "queued":
              if (emojis.queued === current) return;
              cancelDebounce();
              change(emojis.queued);
              restartStall();
              return;
            case "thinking":
              return debounced(emojis.thinking);
            case "tool":
              return debounced(toolReaction(signal.name, emojis));
            case "activity":
              return restartStall();
            case "done":
              return finish(emojis.done, doneFace(random), options.doneHoldMs);
            case "error":
              return finish(emojis.error, undefined, options.errorHoldMs);
          }
        },
        error: (err: unknown) => {
          // Before passing it on, so no timer outlives the failure even for an instant.
          cancelAll();
          subscriber.error(err);
        },
        complete: () => {
          inputDone = true;
          // A turn that ended without done / error shows nothing more (completing tears down its
          // timers); a pending hold still clears the final emoji first.
          if (hold === undefined) subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        cancelAll();
      };
    });
}

/** Upstream's random face; an out-of-range `random()` falls back to the first rather than nothing. */
function doneFace(random: () => number): string {
  return DONE_FACES[Math.floor(random() * DONE_FACES.length)] ?? DONE_FACES[0];
}
