import { asyncScheduler, concat, concatMap, from, merge, Observable, of, throwError, timer, type SchedulerLike } from "rxjs";
import { describe, expect, it } from "vitest";
import type { OutboundCommand, OutboundMessage } from "../../../../operators/delivery/outboundMessage.js";
import { MemoryRateBuckets, type RateBuckets } from "../../../../operators/delivery/flow/rateBuckets.js";
import type { PlatformRateLimits } from "../../../../operators/delivery/flow/platformRateLimits.js";
import type { SendClass } from "../../../../operators/delivery/flow/sendClass.js";
import { SendShaper, type ShapedWait } from "../../../../operators/delivery/flow/sendShaper.js";
import type { BucketLimit } from "../../../../operators/delivery/flow/tokenBucket.js";
import { testScheduler } from "../../../helpers/marbles.js";

const perSecond: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
const human: SendClass = { group: false, human: true };
const proactive: SendClass = { group: false, human: false };

/** A message named `<conversation><n>` (`x1`: conversation x's first), optionally a command. */
function message(name: string, command?: OutboundCommand): OutboundMessage {
  return { reply_to: "", platform: "telegram", channel: { id: name[0] as string }, content: { type: "text", text: name }, ...(command === undefined ? {} : { command }) };
}

function limits(set: Partial<PlatformRateLimits>): (platform: string) => PlatformRateLimits | undefined {
  const resolved: PlatformRateLimits = { conversationCounts: new Set(["message"]), botCounts: new Set(["message"]), ...set };
  return (platform) => (platform === "telegram" ? resolved : undefined);
}

function shaper(scheduler: SchedulerLike, set: Partial<PlatformRateLimits>, extra: { bot?: RateBuckets; waits?: ShapedWait[]; errors?: unknown[] } = {}): SendShaper {
  return new SendShaper({
    limits: limits(set),
    bot: extra.bot ?? new MemoryRateBuckets(),
    scheduler,
    onWait: (wait) => extra.waits?.push(wait),
    onBucketError: (err) => extra.errors?.push(err),
  });
}

/** What a turn does: its messages one after another, each sent (here: emitted) once the shaper lets it go. */
function turn(shaped: SendShaper, names: readonly string[], sendClass: SendClass = human): Observable<string> {
  return from(names).pipe(concatMap((name) => shaped.shape(message(name), sendClass, () => of(name))));
}

describe("SendShaper (marbles)", () => {
  it("a platform without limits: the send itself, subscribed at once", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const s = shaper(asyncScheduler, {});
      const send = cold("-a|");
      const other: OutboundMessage = { ...message("x1"), platform: "irc" };
      expect(s.shape(other, human, () => send)).toBe(send);
      expectObservable(s.shape(other, human, () => send)).toBe("-a|");
    });
  });

  it("one conversation at 1 per second: a turn's three messages leave 1 s apart, in order", () => {
    testScheduler().run(({ expectObservable }) => {
      const waits: ShapedWait[] = [];
      const s = shaper(asyncScheduler, { perConversation: perSecond }, { waits });
      expectObservable(turn(s, ["x1", "x2", "x3"])).toBe("a 999ms b 999ms (c|)", { a: "x1", b: "x2", c: "x3" });
    });
  });

  it("records each send a bucket held, and which bucket held it last; a slow shared bucket is no hold", () => {
    const waits: ShapedWait[] = [];
    testScheduler().run(({ expectObservable, flush }) => {
      const memory = new MemoryRateBuckets();
      const slow: RateBuckets = { take: (key, limit, now, mode) => timer(5).pipe(concatMap(() => memory.take(key, limit, now, mode))) };
      const s = shaper(asyncScheduler, { perConversation: perSecond, perBot: { messages: 2, perSecs: 1, burst: 2 } }, { waits, bot: slow });
      // Each asks at 0 and hears 5 ms later (within the margin): x1 and y1 take the bot's two tokens, z1 the next,
      // at 1100 (the bot's window widened by four times its 25 ms margin). x2 waits for x's bucket (1005), then for the bot's.
      expectObservable(merge(turn(s, ["x1", "x2"]), turn(s, ["y1"]), turn(s, ["z1"]))).toBe("5ms (ab) 1091ms (cd|)", { a: "x1", b: "y1", c: "z1", d: "x2" });
      flush();
    });
    expect(waits).toEqual([
      { platform: "telegram", waitedMs: 1100, bucket: "bot" },
      { platform: "telegram", waitedMs: 1095, bucket: "bot" },
    ]);
  });

  it("conversations do not wait for each other", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond });
      expectObservable(merge(turn(s, ["x1", "x2"]), turn(s, ["y1"]))).toBe("(ab) 996ms (c|)", { a: "x1", b: "y1", c: "x2" });
    });
  });

  it("two threads of one chat share its bucket and go in the order they asked", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond });
      const thread = (name: string): Observable<string> => s.shape({ ...message(name), channel: { id: "x", thread_id: name } }, human, () => of(name));
      expectObservable(merge(thread("x1"), thread("x2"), thread("x3"))).toBe("a 999ms b 999ms (c|)", { a: "x1", b: "x2", c: "x3" });
    });
  });

  it("the bot's bucket holds across conversations: 2 per second in all (its window 100 ms longer: the margin for a shared bucket's answer and for the paths to the platform)", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond, perBot: { messages: 2, perSecs: 1, burst: 2 } });
      expectObservable(merge(turn(s, ["w1"]), turn(s, ["x1"]), turn(s, ["y1"]), turn(s, ["z1"]))).toBe("(ab) 1096ms (cd|)", { a: "w1", b: "x1", c: "y1", d: "z1" });
    });
  });

  it("a reply to a person goes before a proactive send that asked first when the bot's bucket is contended", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perBot: perSecond });
      // p1 takes the free token at 0; h1 reserves 1100; p2 asks at 0 and finds none now; h2 asks at 500 and reserves 2200 ahead of p2.
      const p1 = turn(s, ["p1"], proactive);
      const h1 = turn(s, ["h1"]);
      const p2 = turn(s, ["q1"], proactive);
      const h2 = timer(500).pipe(concatMap(() => turn(s, ["h2"])));
      expectObservable(merge(p1, h1, p2, h2)).toBe("a 1099ms b 1099ms c 1099ms (d|)", { a: "p1", b: "h1", c: "h2", d: "q1" });
    });
  });

  it("the group's bucket counts only in group conversations", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perGroup: perSecond });
      const group: SendClass = { group: true, human: true };
      expectObservable(turn(s, ["x1", "x2"], group)).toBe("a 999ms (b|)", { a: "x1", b: "x2" });
      expectObservable(turn(s, ["y1", "y2"], human)).toBe("(ab|)", { a: "y1", b: "y2" });
    });
  });

  it("counts only the kinds the platform counts: edits pass a conversation bucket that counts messages", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond });
      const sends = concat(
        s.shape(message("x1"), human, () => of("x1")),
        s.shape(message("x2", "edit_message"), human, () => of("x2")),
        s.shape(message("x3", "add_reaction"), human, () => of("x3")),
        s.shape(message("x4"), human, () => of("x4")),
      );
      expectObservable(sends).toBe("(abc) 995ms (d|)", { a: "x1", b: "x2", c: "x3", d: "x4" });
    });
  });

  it("typing is a chat action, not a message (Telegram counts only messages): it goes at once, takes no token, and never delays a reply", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond });
      const typing = (at: number) => timer(at).pipe(concatMap(() => s.shape(message("xt", "typing"), human, () => of("xt"))));
      // x2 waits for x's bucket until 1 s; typing at 0 and while x2 waits goes at once, and x2 still leaves at 1 s.
      expectObservable(merge(turn(s, ["x1", "x2"]), typing(0), typing(500), typing(1_000))).toBe("(at) 496ms t 499ms (bt|)", { a: "x1", b: "x2", t: "xt" });
    });
    testScheduler().run(({ expectObservable }) => {
      // The bot's 2 a second: typing asked first takes none of them, so both replies go at once.
      const s = shaper(asyncScheduler, { perBot: { messages: 2, perSecs: 1, burst: 2 } });
      const typing = s.shape(message("zt", "typing"), human, () => of("zt"));
      expectObservable(merge(typing, turn(s, ["x1"]), turn(s, ["y1"]))).toBe("(txy|)", { t: "zt", x: "x1", y: "y1" });
    });
  });

  it("pacing composes: bubbles paced 400 ms apart go 400 ms apart under a burst that allows them, 1 s apart under 1 per second", () => {
    testScheduler().run(({ expectObservable }) => {
      // paceBubbles' rule as the turn applies it: each bubble asked for 400 ms after the previous one went.
      const bubble = (s: SendShaper, name: string) => s.shape(message(name), human, () => of(name));
      const paced = (s: SendShaper, c: string) =>
        concat(bubble(s, `${c}1`), timer(400).pipe(concatMap(() => bubble(s, `${c}2`))), timer(400).pipe(concatMap(() => bubble(s, `${c}3`))));
      const roomy = shaper(asyncScheduler, { perConversation: { messages: 1, perSecs: 1, burst: 5 } });
      expectObservable(paced(roomy, "x")).toBe("a 399ms b 399ms (c|)", { a: "x1", b: "x2", c: "x3" });
      const tight = shaper(asyncScheduler, { perConversation: perSecond });
      expectObservable(paced(tight, "y")).toBe("a 999ms b 999ms (c|)", { a: "y1", b: "y2", c: "y3" });
    });
  });

  it("a gateway's retry_after holds the conversation: the refused send's retry goes then, the next one a token later; other conversations do not wait", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: { messages: 1, perSecs: 1, burst: 5 } });
      s.refused(message("x0"), 1500);
      expectObservable(turn(s, ["x1", "x2"])).toBe("2500ms a 999ms (b|)", { a: "x1", b: "x2" });
      expectObservable(turn(s, ["y1"])).toBe("(a|)", { a: "y1" });
      // A platform without a conversation limit still holds the conversation, until the retry.
      const noConversationLimit = shaper(asyncScheduler, { perBot: { messages: 100, perSecs: 1, burst: 100 } });
      noConversationLimit.refused(message("z1"), 700);
      expectObservable(turn(noConversationLimit, ["z1"])).toBe("700ms (a|)", { a: "z1" });
    });
  });

  it("unsubscribing a waiting send lets the next in its lane go at its own time; a send's error and completion pass through", () => {
    testScheduler().run(({ expectObservable }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond });
      expectObservable(s.shape(message("x1"), human, () => of("x1"))).toBe("(a|)", { a: "x1" });
      // x2 waits for the token at 1000 and is dropped at 500; x3 (asked at 600) goes at 1000.
      expectObservable(s.shape(message("x2"), human, () => of("x2")), "^ 500ms !").toBe("");
      expectObservable(timer(600).pipe(concatMap(() => s.shape(message("x3"), human, () => of("x3"))))).toBe("1000ms (a|)", { a: "x3" });
      expectObservable(timer(3000).pipe(concatMap(() => s.shape(message("x4"), human, () => throwError(() => new Error("refused")))))).toBe("3000ms #", undefined, new Error("refused"));
    });
  });

  it("hold: `go` is called before it returns when nothing holds the send; a wait cancelled never goes, and the lane's next goes at its own time", () => {
    testScheduler().run(({ flush }) => {
      const s = shaper(asyncScheduler, { perConversation: perSecond });
      const went: string[] = [];
      const going = (name: string) => () => went.push(`${name}@${asyncScheduler.now()}`);
      s.hold(message("x1"), human, going("x1"));
      expect(went).toEqual(["x1@0"]);
      const cancel = s.hold(message("x2"), human, going("x2"));
      s.hold(message("x3"), human, going("x3"));
      cancel();
      flush();
      expect(went).toEqual(["x1@0", "x3@1000"]);
    });
  });

  it("past maxKeys, conversations as good as new are forgotten and busy ones kept, so every limit still holds", () => {
    const went: string[] = [];
    testScheduler().run(({ flush }) => {
      const s = new SendShaper({ limits: limits({ perConversation: perSecond }), bot: new MemoryRateBuckets(), scheduler: asyncScheduler, maxKeys: 2 });
      const at = (ms: number, name: string) => asyncScheduler.schedule(() => s.hold(message(name), human, () => went.push(`${name}@${asyncScheduler.now()}`)), ms);
      // z1 finds x and y just used: both kept (the next sweep waits for twice as many), and x2 still waits for x's token.
      // By 5000 x, y and z are as good as new: forgotten when v1 comes, and a forgotten bucket is a full one.
      [[0, "x1"], [0, "y1"], [0, "z1"], [500, "x2"], [5000, "w1"], [5000, "v1"], [5001, "x3"], [5002, "x4"]].forEach(([ms, name]) => at(ms as number, name as string));
      flush();
    });
    expect(went).toEqual(["x1@0", "y1@0", "z1@0", "x2@1000", "w1@5000", "v1@5000", "x3@5001", "x4@6001"]);
  });

  it("a bot bucket that fails: the send goes by the conversation's limits, and the error is told", () => {
    const errors: unknown[] = [];
    testScheduler().run(({ expectObservable }) => {
      const failing: RateBuckets = { take: () => throwError(() => new Error("kv down")) };
      const s = shaper(asyncScheduler, { perConversation: perSecond, perBot: perSecond }, { bot: failing, errors });
      expectObservable(turn(s, ["x1", "x2"])).toBe("a 999ms (b|)", { a: "x1", b: "x2" });
    });
    expect(errors).toHaveLength(2);
  });

  it("a bot bucket that answers within the margin: the send goes when it answers", () => {
    testScheduler().run(({ expectObservable }) => {
      const memory = new MemoryRateBuckets();
      const slow: RateBuckets = { take: (key, limit, now, mode) => timer(20).pipe(concatMap(() => memory.take(key, limit, now, mode))) };
      // Each asks at 0: x1 finds the token free (and hears at 20, 20 ms late), y1 reserves the next, at 1100.
      const s = shaper(asyncScheduler, { perBot: perSecond }, { bot: slow });
      expectObservable(merge(turn(s, ["x1"]), turn(s, ["y1"]))).toBe("20ms a 1079ms (b|)", { a: "x1", b: "y1" });
    });
  });

  it("a bot bucket that answers later than the margin: the late token is left unused and the send asks again, so no real window is crowded", () => {
    testScheduler().run(({ expectObservable }) => {
      const memory = new MemoryRateBuckets();
      const slow: RateBuckets = { take: (key, limit, now, mode) => timer(30).pipe(concatMap(() => memory.take(key, limit, now, mode))) };
      // x1's token is for 0 and it hears at 30: too late to use. y1's is for 1100 and it waits for it; x1 asks again and gets 2200.
      const s = shaper(asyncScheduler, { perBot: perSecond }, { bot: slow });
      expectObservable(merge(turn(s, ["x1"]), turn(s, ["y1"]))).toBe("1100ms a 1099ms (b|)", { a: "y1", b: "x1" });
    });
  });
});
