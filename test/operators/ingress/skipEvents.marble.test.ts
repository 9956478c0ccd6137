import { describe, expect, it } from "vitest";
import { skipEvents, type SkipReason } from "../../../operators/ingress/skipEvent.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";

const config = { allow_bot_messages: false, trusted_bot_ids: [], bot_username: "mybot" };
const values = {
  a: gatewayEvent({ event_id: "a" }),
  b: gatewayEvent({ event_id: "b", sender: { id: "bot", name: "b", display_name: "B", is_bot: true } }),
  c: gatewayEvent({ event_id: "c", channel: { id: "g", type: "group" } }),
  d: gatewayEvent({ event_id: "d", channel: { id: "g", type: "group" }, mentions: ["mybot"] }),
};

describe("skipEvents", () => {
  it("drops skipped events in place and reports each with its reason", () => {
    const skipped: [string, SkipReason][] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("-a-b-c-d|", values).pipe(skipEvents(config, (event, reason) => skipped.push([event.event_id, reason])));
      expectObservable(out).toBe("-a-----d|", values);
    });
    expect(skipped).toStrictEqual([
      ["b", "bot_not_trusted"],
      ["c", "not_mentioned"],
    ]);
  });

  it("keepUnmentioned: passes an unmentioned group message as history, and still skips the rest", () => {
    const skipped: [string, SkipReason][] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("-a-b-c-d|", values).pipe(skipEvents(config, (event, reason) => skipped.push([event.event_id, reason]), { keepUnmentioned: true }));
      expectObservable(out).toBe("-a---c-d|", { ...values, c: { ...values.c, history: true } });
    });
    expect(skipped).toStrictEqual([["b", "bot_not_trusted"]]);
    expect(values.c.history).toBeUndefined(); // the event itself is not changed
  });

  it("works without onSkip", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("ab|", values).pipe(skipEvents(config))).toBe("a-|", values);
    });
  });

  it("passes errors through and unsubscribes from the source", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<GatewayEvent>("-a-#", values);
      expectObservable(source.pipe(skipEvents(config))).toBe("-a-#", values);
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("unsubscribes from the source when the subscriber does", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<GatewayEvent>("-a--d--|", values);
      expectObservable(source.pipe(skipEvents(config)), "^---!").toBe("-a---", values);
      expectSubscriptions(source.subscriptions).toBe("^---!");
    });
  });
});
