import { asyncScheduler, type SchedulerLike } from "rxjs";
import { describe, it } from "vitest";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { denyEchoText, trustGate, type TrustVerdict } from "../../../operators/ingress/trustGate.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";

const config = { allowed_channels: ["c1"], allowed_users: ["trusted"] };

const from = (id: string, sender: string, extra: Partial<GatewayEvent> = {}) =>
  gatewayEvent({
    event_id: id,
    channel: { id: "c1", type: "group" },
    sender: { id: sender, name: sender, display_name: sender, is_bot: false },
    ...extra,
  });

const echo = (event: GatewayEvent): OutboundMessage => ({
  reply_to: event.event_id,
  platform: event.platform,
  channel: { id: event.channel.id },
  content: { type: "text", text: denyEchoText(event.sender.id) },
});
const denied = (event: GatewayEvent, withEcho: boolean): TrustVerdict =>
  withEcho ? { kind: "deny", event, decision: "deny_identity", echo: echo(event) } : { kind: "deny", event, decision: "deny_identity" };

describe("trustGate", () => {
  it("echoes at most once per sender per 300 000 ms of scheduler time", () => {
    const events = { a: from("e1", "ann"), b: from("e2", "ann"), c: from("e3", "ann"), d: from("e4", "ann") };
    testScheduler().run(({ cold, expectObservable }) => {
      // ann at 0 (echo), 299 999 (silent), 300 000 (echo again), 300 001 (silent: the window restarted).
      const out = cold("a 299998ms bcd|", events).pipe(trustGate(config));
      expectObservable(out).toBe("a 299998ms bcd|", {
        a: denied(events.a, true),
        b: denied(events.b, false),
        c: denied(events.c, true),
        d: denied(events.d, false),
      });
    });
  });

  it("echoes at most once per echoWindowMs when one is given (a platform adapter's hour)", () => {
    const events = { a: from("e1", "ann"), b: from("e2", "ann"), c: from("e3", "ann") };
    testScheduler().run(({ cold, expectObservable }) => {
      // 300 000 ms is not enough any more: ann is echoed at 0 and again only at 3 600 000.
      const out = cold("a 299999ms b 3299999ms c|", events).pipe(trustGate(config, { echoWindowMs: 3_600_000 }));
      expectObservable(out).toBe("a 299999ms b 3299999ms c|", { a: denied(events.a, true), b: denied(events.b, false), c: denied(events.c, true) });
    });
  });

  it("throttles each platform:sender independently", () => {
    const events = {
      a: from("e1", "ann"),
      b: from("e2", "bob"),
      c: from("e3", "ann"),
      d: from("e4", "ann", { platform: "line" }),
      e: from("e5", "bob"),
    };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("abcd 99ms e|", events).pipe(trustGate(config));
      expectObservable(out).toBe("abcd 99ms e|", {
        a: denied(events.a, true),
        b: denied(events.b, true),
        c: denied(events.c, false),
        d: denied(events.d, true),
        e: denied(events.e, false),
      });
    });
  });

  it("keeps a platform with ':' apart from another platform's sender of the same spelling", () => {
    const events = { a: from("e1", "c", { platform: "x:b" }), b: from("e2", "b:c", { platform: "x" }) };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("ab|", events).pipe(trustGate(config));
      expectObservable(out).toBe("ab|", { a: denied(events.a, true), b: denied(events.b, true) });
    });
  });

  it("reads time from the scheduler it is given", () => {
    const events = { a: from("e1", "ann"), b: from("e2", "ann") };
    // A clock stuck at 0: however much virtual time passes, ann's window never ends.
    const frozen: SchedulerLike = { now: () => 0, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a 400000ms b|", events).pipe(trustGate(config, { scheduler: frozen }));
      expectObservable(out).toBe("a 400000ms b|", { a: denied(events.a, true), b: denied(events.b, false) });
    });
  });

  it("passes allowed events through, denies out-of-scope ones silently, and keeps the thread in the echo", () => {
    const events = {
      a: from("e1", "trusted"),
      b: from("e2", "ann", { channel: { id: "c9", type: "group" } }),
      c: from("e3", "ann", { channel: { id: "c1", type: "supergroup", thread_id: "t7" } }),
    };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("abc|", events).pipe(trustGate(config));
      expectObservable(out).toBe("abc|", {
        a: { kind: "allow", event: events.a },
        b: { kind: "deny", event: events.b, decision: "deny_scope" },
        c: { ...denied(events.c, true), echo: { ...echo(events.c), channel: { id: "c1", thread_id: "t7" } } },
      });
    });
  });

  it("does not let a scope denial use up the sender's echo", () => {
    const events = { a: from("e1", "ann", { channel: { id: "c9", type: "group" } }), b: from("e2", "ann") };
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("ab|", events).pipe(trustGate(config))).toBe("ab|", {
        a: { kind: "deny", event: events.a, decision: "deny_scope" },
        b: denied(events.b, true),
      });
    });
  });

  it("passes errors through and unsubscribes from the source", () => {
    const events = { a: from("e1", "trusted") };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<GatewayEvent>("-a-#", events);
      expectObservable(source.pipe(trustGate(config))).toBe("-a-#", { a: { kind: "allow", event: events.a } });
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("unsubscribes from the source when the subscriber does", () => {
    const events = { a: from("e1", "trusted") };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<GatewayEvent>("-a---a|", events);
      expectObservable(source.pipe(trustGate(config)), "^--!").toBe("-a-", { a: { kind: "allow", event: events.a } });
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });
});
