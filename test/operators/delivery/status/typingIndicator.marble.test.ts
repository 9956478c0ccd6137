import { describe, it } from "vitest";
import { EMPTY } from "rxjs";
import { TYPING_RENEW_MS, typingIndicator } from "../../../../operators/delivery/status/typingIndicator.js";
import { testScheduler } from "../../../helpers/marbles.js";

// Ticks are 0, 1, 2, …: one typing indicator each.
const ticks = { a: 0, b: 1, c: 2, d: 3 };

describe("typingIndicator (marbles)", () => {
  it("renews every 4 s: Telegram shows a chat action for 5 s", ({ expect }) => {
    expect(TYPING_RENEW_MS).toBe(4_000);
  });

  it("ticks at the start, then every 4 s until the turn ends, and nothing after", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const span = cold("10s |");
      const typing = span.pipe(typingIndicator());
      expectObservable(typing).toBe("a 3999ms b 3999ms c 1999ms |", ticks);
      expectSubscriptions(span.subscriptions).toBe("^ 9999ms !");
    });
  });

  it("keeps renewing between the turn's messages: a bubble sent does not pause it or restart its cadence", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // Bubbles at 1 s, 4.5 s and 8.2 s; the turn ends right after the last (9 s).
      const span = cold("1s m 3499ms m 3699ms m 799ms |");
      expectObservable(span.pipe(typingIndicator())).toBe("a 3999ms b 3999ms c 999ms |", ticks);
    });
  });

  it("stops when the turn ends just before a renewal falls due", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("3999ms |").pipe(typingIndicator())).toBe("a 3998ms |", ticks);
    });
  });

  it("a turn over within the call that starts it shows nothing: the first tick is scheduled, not sent within the call", () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(EMPTY.pipe(typingIndicator())).toBe("|");
    });
  });

  it("a turn that fails ends it the same way, the error passed on", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const failed = new Error("agent died");
      expectObservable(cold("5s #", undefined, failed).pipe(typingIndicator())).toBe("a 3999ms b 999ms #", ticks, failed);
    });
  });

  it("unsubscribed (the turn cancelled): no tick after, and the span is let go", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const span = cold("-");
      expectObservable(span.pipe(typingIndicator()), "^ 8500ms !").toBe("a 3999ms b 3999ms c", ticks);
      expectSubscriptions(span.subscriptions).toBe("^ 8500ms !");
    });
  });

  it("a turn that never ends keeps it on (the caller ends it), at the interval it is given", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("-").pipe(typingIndicator({ intervalMs: 1_000 })), "^ 3500ms !").toBe("a 999ms b 999ms c 999ms d", ticks);
    });
  });

  it("is cold: each subscription has its own cadence from its own start", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const typing = cold("6s |").pipe(typingIndicator());
      expectObservable(typing).toBe("a 3999ms b 1999ms |", ticks);
      expectObservable(typing, "1s ^").toBe("1s a 3999ms b 1999ms |", ticks);
    });
  });
});
