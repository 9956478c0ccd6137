import { describe, expect, it } from "vitest";
import type { SchedulerAction, SchedulerLike, Subscription } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import {
  DONE_FACES,
  STALL_HARD_EMOJI,
  STALL_SOFT_EMOJI,
  statusReactions,
  toolReaction,
  type ReactionChange,
  type ReactionEmojis,
  type ReactionSignal,
  type StatusReactionsOptions,
} from "../../../../operators/delivery/status/statusReactions.js";
import { testScheduler } from "../../../helpers/marbles.js";

// Upstream's defaults (§15, §16.6).
const defaults: ReactionEmojis = { queued: "👀", thinking: "🤔", tool: "🔥", coding: "👨‍💻", web: "⚡", done: "🆗", error: "😱" };
const timing = { debounceMs: 700, stallSoftMs: 10_000, stallHardMs: 30_000, doneHoldMs: 1500, errorHoldMs: 2500 };

const options = (fields: Partial<StatusReactionsOptions> = {}): StatusReactionsOptions => ({
  emojis: defaults,
  ...timing,
  removeAfterReply: false,
  random: () => 0.99,
  ...fields,
});

const signals = {
  q: { type: "queued" },
  t: { type: "thinking" },
  W: { type: "tool", name: "Web_Search" },
  C: { type: "tool", name: "BASH" },
  X: { type: "tool", name: "list_issues" },
  a: { type: "activity" },
  d: { type: "done" },
  e: { type: "error" },
} satisfies Record<string, ReactionSignal>;

/** Lower case adds, upper case removes; `k` is the face `random: () => 0.99` picks (🦾). */
function changes(emojis: ReactionEmojis, face: string = DONE_FACES[7]): Record<string, ReactionChange> {
  const add = (emoji: string): ReactionChange => ({ op: "add", emoji });
  const remove = (emoji: string): ReactionChange => ({ op: "remove", emoji });
  const pairs: [string, string][] = [
    ["q", emojis.queued],
    ["t", emojis.thinking],
    ["f", emojis.tool],
    ["c", emojis.coding],
    ["w", emojis.web],
    ["s", STALL_SOFT_EMOJI],
    ["h", STALL_HARD_EMOJI],
    ["d", emojis.done],
    ["e", emojis.error],
  ];
  const map: Record<string, ReactionChange> = { k: add(face) };
  for (const [letter, emoji] of pairs) {
    map[letter] = add(emoji);
    map[letter.toUpperCase()] = remove(emoji);
  }
  return map;
}
const out = changes(defaults);

/** Hands the test scheduler to the operator and keeps every timer it schedules, to see they were cancelled. */
function tracked(scheduler: TestScheduler) {
  const timers: Subscription[] = [];
  const tracking: SchedulerLike = {
    now: () => scheduler.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
      const timer = scheduler.schedule(work, delay, state);
      timers.push(timer);
      return timer;
    },
  };
  return { scheduler: tracking, timers, live: () => timers.filter((timer) => !timer.closed).length };
}

describe("toolReaction", () => {
  it.each([
    ["web_search", "⚡"],
    ["Web_Fetch", "⚡"],
    ["mcp__web-search__query", "⚡"],
    ["WEB-FETCH", "⚡"],
    ["open Browser tab", "⚡"],
    // web wins over coding when a name has both.
    ["web_fetch then read", "⚡"],
    ["Bash", "👨‍💻"],
    ["exec_command", "👨‍💻"],
    ["process", "👨‍💻"],
    ["Read File", "👨‍💻"],
    ["write_file", "👨‍💻"],
    ["EDIT", "👨‍💻"],
    ["shell", "👨‍💻"],
    // Substring, as upstream: "thread" contains "read".
    ["ThreadList", "👨‍💻"],
    ["list_issues", "🔥"],
    ["websearch", "🔥"],
    ["", "🔥"],
  ])("%j → %s", (name, emoji) => {
    expect(toolReaction(name, defaults)).toBe(emoji);
  });
});

describe("statusReactions", () => {
  it("shows queued at once", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("q|", signals).pipe(statusReactions(options()))).toBe("q|", out);
    });
  });

  it("shows thinking exactly debounceMs after the signal: adds it, then removes queued", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 99ms t 1999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 799ms (tQ) 1296ms |", out);
    });
  });

  it("two debounced signals in quick succession: only the last applies, at its own debounce", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // thinking at 100 would show at 800; the coding tool at 200 replaces it and shows at 900.
      const input = cold("q 99ms t 99ms C 1999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 899ms (cQ) 1296ms |", out);
    });
  });

  it("queued again while another emoji shows: at once, dropping a pending debounced change", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // thinking shows at 700; the tool at 1000 would show at 1700, but queued at 1200 cancels it.
      const input = cold("(qt) 996ms X 199ms q 999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 699ms (tQ) 496ms (qT) 996ms |", out);
    });
  });

  it("the emoji already shown: no change, but the stall timers restart", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // The second thinking at 1000 changes nothing; the soft stall moves from 10 000 to 11 000.
      const input = cold("(qt) 996ms t 10999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 699ms (tQ) 10296ms (sT) 996ms |", out);
    });
  });

  it("queued while queued shows: nothing, and the stall timers do not restart", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 4999ms q 5499ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 9999ms (sQ) 496ms |", out);
    });
  });

  it("a debounced signal for the emoji shown leaves another pending change in place", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // The tool at 1000 is pending for 1700; thinking at 1200 is what shows, so it only restarts the stalls.
      const input = cold("(qt) 996ms X 199ms t 1799ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 699ms (tQ) 996ms (fT) 1296ms |", out);
    });
  });

  it("classifies tools by name, case-insensitively: web, coding, then a generic tool", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 999ms W 999ms C 999ms X 999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 1699ms (wQ) 996ms (cW) 996ms (fC) 296ms |", out);
    });
  });

  it("stalls softly at exactly stallSoftMs and hard at stallHardMs, both from the last update", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // The hard stall counts from the update too, not from the soft stall (which restarts nothing).
      const input = cold("q 39999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 9999ms (sQ) 19996ms (hS) 9996ms |", out);
    });
  });

  it("a debounced signal restarts the stalls when it arrives, not when its change shows", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 1999ms t 37999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 2699ms (tQ) 9296ms (sT) 19996ms (hS) 7996ms |", out);
    });
  });

  it("activity restarts both stall timers and changes nothing itself", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 4999ms a 34999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 14999ms (sQ) 19996ms (hS) 4996ms |", out);
    });
  });

  it("activity after the soft stall: both stalls again from then (the soft one re-adds, as upstream)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 19999ms a 39999ms |", signals);
      // Soft at 10 000; activity at 20 000; soft again at 30 000 (same emoji: add only), hard at 50 000.
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 9999ms (sQ) 19996ms s 19999ms (hS) 9996ms |", out);
    });
  });

  it("done: adds the done emoji, removes the previous one, then adds the face", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 99ms t 1899ms d 999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 799ms (tQ) 1196ms (dTk) 995ms |", out);
    });
  });

  it("done cancels a pending debounce and the stalls, and ignores every signal after it", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 99ms t 399ms d 999ms (qtCaed) 38492ms |", signals);
      const faced = changes(defaults, DONE_FACES[0]);
      expectObservable(input.pipe(statusReactions(options({ random: () => 0 })))).toBe("q 499ms (dQk) 39495ms |", faced);
    });
  });

  it.each([
    [0, 0],
    [0.124, 0],
    [0.125, 1],
    [0.5, 4],
    [0.999, 7],
    // Outside the contract: still a face, never a crash or an `undefined` emoji.
    [1, 0],
    [Number.NaN, 0],
  ])("random() = %d picks face %d", (x, index) => {
    testScheduler().run(({ cold, expectObservable }) => {
      const faced = changes(defaults, DONE_FACES[index]);
      expectObservable(cold("(d|)", signals).pipe(statusReactions(options({ random: () => x })))).toBe("(dk|)", faced);
    });
  });

  it("error: adds the error emoji and removes the previous one, with no face", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 999ms e 999ms |", signals);
      expectObservable(input.pipe(statusReactions(options()))).toBe("q 999ms (eQ) 996ms |", out);
    });
  });

  it("removeAfterReply: removes done exactly doneHoldMs later and completes right after", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 1999ms d 499ms |", signals);
      expectObservable(input.pipe(statusReactions(options({ removeAfterReply: true })))).toBe("q 1999ms (dQk) 1495ms (D|)", out);
    });
  });

  it("removeAfterReply: removes error exactly errorHoldMs later and completes right after", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 999ms e 99ms |", signals);
      expectObservable(input.pipe(statusReactions(options({ removeAfterReply: true })))).toBe("q 999ms (eQ) 2496ms (E|)", out);
    });
  });

  it("removeAfterReply: an input that completes after the hold completes the output then", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 999ms d 4999ms |", signals);
      expectObservable(input.pipe(statusReactions(options({ removeAfterReply: true })))).toBe("q 999ms (dQk) 1495ms D 3499ms |", out);
    });
  });

  it("done and completion in the same frame: completes at once, or after the hold with removeAfterReply", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("(qd|)", signals).pipe(statusReactions(options()))).toBe("(qdQk|)", out);
      expectObservable(cold("(qd|)", signals).pipe(statusReactions(options({ removeAfterReply: true })))).toBe("(qdQk) 1494ms (D|)", out);
    });
  });

  it("completion before done or error cancels the pending timers and completes at once", () => {
    const scheduler = testScheduler();
    const timers = tracked(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      // With removeAfterReply too: no hold starts without done or error.
      const input = cold("q 99ms t 99ms |", signals);
      const reactions = input.pipe(statusReactions(options({ removeAfterReply: true, scheduler: timers.scheduler })));
      expectObservable(reactions).toBe("q 199ms |", out);
    });
    expect(timers.timers).toHaveLength(5);
    expect(timers.live()).toBe(0);
  });

  it("unsubscribing cancels the debounce and the stall timers", () => {
    const scheduler = testScheduler();
    const timers = tracked(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const input = cold("q 99ms t", signals);
      expectObservable(input.pipe(statusReactions(options({ scheduler: timers.scheduler }))), "^ 299ms !").toBe("q", out);
    });
    expect(timers.timers).toHaveLength(5);
    expect(timers.live()).toBe(0);
  });

  it("unsubscribing cancels a pending hold", () => {
    const scheduler = testScheduler();
    const timers = tracked(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const input = cold("q 99ms d", signals);
      const reactions = input.pipe(statusReactions(options({ removeAfterReply: true, scheduler: timers.scheduler })));
      expectObservable(reactions, "^ 299ms !").toBe("q 99ms (dQk)", out);
    });
    expect(timers.live()).toBe(0);
  });

  it("an input error is passed on after cancelling every timer, a hold included", () => {
    const scheduler = testScheduler();
    const timers = tracked(scheduler);
    scheduler.run(({ cold, expectObservable }) => {
      const reactions = (input: string) =>
        cold(input, signals).pipe(statusReactions(options({ removeAfterReply: true, scheduler: timers.scheduler })));
      expectObservable(reactions("q 99ms t 99ms #")).toBe("q 199ms #", out);
      expectObservable(reactions("q 99ms d 99ms #")).toBe("q 99ms (dQk) 95ms #", out);
    });
    expect(timers.live()).toBe(0);
  });

  it("an input error finds every timer already cancelled when it reaches the subscriber", () => {
    const scheduler = testScheduler();
    const timers = tracked(scheduler);
    const liveAtError: number[] = [];
    scheduler.run(({ cold }) => {
      cold("q 99ms t 99ms #", signals)
        .pipe(statusReactions(options({ scheduler: timers.scheduler })))
        .subscribe({ error: () => liveAtError.push(timers.live()) });
    });
    expect(liveAtError).toEqual([0]);
  });

  it("uses [reactions.emojis] overrides for every state", () => {
    const emojis: ReactionEmojis = { queued: "⏳", thinking: "💭", tool: "🛠️", coding: "⌨️", web: "🌐", done: "✅", error: "❌" };
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold("q 999ms W 999ms C 999ms X 999ms t 999ms e 999ms |", signals);
      expectObservable(input.pipe(statusReactions(options({ emojis })))).toBe(
        "q 1699ms (wQ) 996ms (cW) 996ms (fC) 996ms (tF) 296ms (eT) 996ms |",
        changes(emojis),
      );
      expectObservable(cold("(qd|)", signals).pipe(statusReactions(options({ emojis })))).toBe("(qdQk|)", changes(emojis));
    });
  });
});
