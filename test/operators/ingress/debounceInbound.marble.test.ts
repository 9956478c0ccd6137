import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { debounceInbound } from "../../../operators/ingress/debounceInbound.js";
import { isControlCommand } from "../../../operators/ingress/controlCommand.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";

const from = (sender: string, text: string, id: string, extra: Partial<GatewayEvent> = {}) =>
  gatewayEvent({ event_id: id, message_id: `m-${id}`, text, sender: { id: sender, name: sender, display_name: sender, is_bot: false }, ...extra });

const merged = (texts: string[], lastId: string, sender = "ann") => from(sender, texts.join("\n"), lastId);

describe("debounceInbound", () => {
  it("merges quick messages into one after the quiet window, with the last message's ids (hi @0, there @200, window 300)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a 199ms b 1000ms |", { a: from("ann", "hi", "1"), b: from("ann", "there", "2") });
      expectObservable(source.pipe(debounceInbound({ debounceMs: 300 }))).toBe("500ms x 700ms |", { x: merged(["hi", "there"], "2") });
    });
  });

  it("tells onMerged how many events each emitted one folded in, only when it folded some (3 quick, then 1 alone)", () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const folded: [number, string[], GatewayEvent][] = [];
      const [a, b, c] = [from("ann", "1", "1"), from("ann", "2", "2"), from("ann", "3", "3")];
      const source = cold("a 99ms b 99ms c 1000ms d 1000ms |", { a, b, c, d: from("ann", "4", "4") });
      const out = source.pipe(debounceInbound({ debounceMs: 300, onMerged: (n, events, into) => folded.push([n, events.map((e) => e.event_id), into]) }));
      expectObservable(out).toBe("500ms x 1000ms y 700ms |", {
        x: merged(["1", "2", "3"], "3"),
        y: from("ann", "4", "4"),
      });
      flush();
      // Told the batch's own events and the event emitted for them (a port settles them with it).
      expect(folded).toEqual([[2, ["1", "2", "3"], merged(["1", "2", "3"], "3")]]);
    });
  });

  it("flushes the pending batch when a control command arrives, then runs the command alone (a @0, /status @100)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = from("ann", "a", "1");
      const status = from("ann", "/status", "2");
      const source = cold("a 99ms b 2000ms |", { a, b: status });
      expectObservable(source.pipe(debounceInbound({ debounceMs: 1_000 }))).toBe("100ms (ab) 1997ms |", { a, b: status });
    });
  });

  it("flushes at the hard deadline of 5 × debounce when messages keep coming every 500 ms", () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const values: Record<string, GatewayEvent> = {};
      let marble = "";
      for (let i = 0; i < 12; i++) {
        const letter = String.fromCharCode(97 + i);
        values[letter] = from("ann", `m${i}`, `${i}`);
        marble += i === 0 ? letter : ` 499ms ${letter}`;
      }
      const source = hot(`${marble} 2000ms |`, values);
      const first = merged(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10"], "10");
      const second = from("ann", "m11", "11");
      // Every message re-arms the 1 s quiet window, so only the deadline (5 × 1000 ms after m0) ends
      // the batch, at 5000 (m10, emitted in that frame, still joins it); m11 then waits its quiet window.
      expectObservable(source.pipe(debounceInbound({ debounceMs: 1_000 }))).toBe("5000ms x 1499ms y 1000ms |", { x: first, y: second });
    });
  });

  it("keeps senders and conversations apart", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a 9ms b 200ms |", { a: from("ann", "hi", "1"), b: from("bob", "yo", "2") });
      expectObservable(source.pipe(debounceInbound({ debounceMs: 100 }))).toBe("100ms a 9ms b 100ms |", { a: from("ann", "hi", "1"), b: from("bob", "yo", "2") });
    });
  });

  it("passes messages with attachments and proactive events at once, after flushing their key", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = from("ann", "look", "1");
      const photo = from("ann", "", "2", { content: { type: "text", text: "", attachments: [{ type: "image", filename: "p.png", mime_type: "image/png", data: "", size: 0 }] } });
      const source = cold("a 9ms b 500ms |", { a, b: photo });
      expectObservable(source.pipe(debounceInbound({ debounceMs: 100 }))).toBe("10ms (ab) 497ms |", { a, b: photo });
    });
  });

  it("never holds group history: it passes at once, after flushing its key, and is never merged into a turn", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = from("ann", "look", "1");
      const kept = from("ann", "just chatting", "2", { history: true });
      const c = from("ann", "later", "3");
      const source = cold("a 9ms b 9ms c 500ms |", { a, b: kept, c });
      expectObservable(source.pipe(debounceInbound({ debounceMs: 100 }))).toBe("10ms (ab) 106ms c 400ms |", { a, b: kept, c });
    });
  });

  it("never holds a tap on a button: it passes at once, after flushing its key, and two taps stay two", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = from("ann", "look", "1");
      const tap = from("ann", "x", "2", { tap: { id: "cb1", data: "q:k1:0" } });
      const again = from("ann", "x", "3", { tap: { id: "cb2", data: "q:k1:1" } });
      const source = cold("a 9ms b 9ms c 500ms |", { a, b: tap, c: again });
      expectObservable(source.pipe(debounceInbound({ debounceMs: 100 }))).toBe("10ms (ab) 6ms c 500ms |", { a, b: tap, c: again });
    });
  });

  it("caps a batch at 12 messages", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const values: Record<string, GatewayEvent> = {};
      for (let i = 0; i < 13; i++) values[String.fromCharCode(97 + i)] = from("ann", `m${i}`, `${i}`);
      const source = cold("(abcdefghijklm) 500ms |", values);
      const first = merged(Array.from({ length: 12 }, (_, i) => `m${i}`), "11");
      expectObservable(source.pipe(debounceInbound({ debounceMs: 100 }))).toBe("x 99ms y 414ms |", { x: first, y: from("ann", "m12", "12") });
    });
  });

  it("is off with a window of 0, and honours per-platform windows", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = from("ann", "a", "1");
      expectObservable(cold("a|", { a }).pipe(debounceInbound({ debounceMs: 0 }))).toBe("a|", { a });
      expectObservable(cold("a 100ms |", { a }).pipe(debounceInbound({ debounceMs: 0, byPlatform: { telegram: 50 } }))).toBe("50ms a 50ms |", { a });
    });
  });

  it("flushes pending batches when the source completes, so nothing is lost", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = from("ann", "a", "1");
      expectObservable(cold("a 9ms |", { a }).pipe(debounceInbound({ debounceMs: 1_000 }))).toBe("10ms (a|)", { a });
    });
  });
});

describe("isControlCommand", () => {
  it.each(["stop", "Stop!", "please stop", "/status", "/new", "stopp", "do not do that", "/reset", "/cancel"])("%s is a control command", (text) => {
    expect(isControlCommand(text)).toBe(true);
  });
  it.each(["hey /status", "stop it now", "hello", ""])("%s is not", (text) => {
    expect(isControlCommand(text)).toBe(false);
  });
});
