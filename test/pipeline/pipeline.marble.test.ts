import { describe, expect, it } from "vitest";
import { delay, filter, map, mergeMap, of, throwError } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { StageError } from "../../src/pipeline/errors.js";
import { Pipeline, type StageObserver } from "../../src/pipeline/pipeline.js";
import { gatewayEvent } from "../helpers/events.js";
import { testScheduler } from "../helpers/marbles.js";

/** What `runValue` reported, in order. */
function recorder(): { observer: StageObserver<GatewayEvent>; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    observer: {
      next: (event) => seen.push(`next ${event.content.text}`),
      error: (err) => seen.push(`error ${err.stage} ${(err.cause as Error).message}`),
      complete: () => seen.push("complete"),
    },
  };
}

const text = (value: string) => gatewayEvent({ text: value });
const shout = map((event: GatewayEvent) => ({ ...event, content: { ...event.content, text: event.content.text.toUpperCase() } }));

describe("Pipeline", () => {
  it("runs an empty stage synchronously and builds nothing: runValue reports at once and returns nothing to cancel", () => {
    const { observer, seen } = recorder();
    expect(new Pipeline().runValue("beforeDispatch", text("hi"), observer)).toBeUndefined();
    expect(seen).toEqual(["next hi", "complete"]);
  });

  it("runs a stage's operators in the order they were added, on a one-value stream", () => {
    testScheduler().run(({ expectObservable }) => {
      const pipeline = new Pipeline().use("beforeDispatch", shout).use("beforeDispatch", map((e) => ({ ...e, content: { ...e.content, text: `${e.content.text}!` } })));
      expectObservable(pipeline.run("beforeDispatch", text("hi")).pipe(map((e) => e.content.text))).toBe("(a|)", { a: "HI!" });
    });
  });

  it("takes an operator added after it already ran: the cached composition is rebuilt", () => {
    const pipeline = new Pipeline().use("beforeDispatch", shout);
    const first = recorder();
    pipeline.runValue("beforeDispatch", text("a"), first.observer);
    pipeline.use("beforeDispatch", filter(() => false));
    const second = recorder();
    pipeline.runValue("beforeDispatch", text("b"), second.observer);
    expect(first.seen).toEqual(["next A", "complete"]);
    expect(second.seen).toEqual(["complete"]);
  });

  it("reports a drop as complete with no value, a fan-out as several values, an error as StageError naming the stage", () => {
    const dropped = recorder();
    new Pipeline().use("beforeDispatch", filter(() => false)).runValue("beforeDispatch", text("x"), dropped.observer);
    const fanned = recorder();
    new Pipeline().use("beforeDispatch", mergeMap((e: GatewayEvent) => of(e, { ...e, content: { ...e.content, text: "again" } }))).runValue("beforeDispatch", text("x"), fanned.observer);
    const failed = recorder();
    new Pipeline().use("beforeDispatch", mergeMap(() => throwError(() => new Error("bug")))).runValue("beforeDispatch", text("x"), failed.observer);
    expect(dropped.seen).toEqual(["complete"]);
    expect(fanned.seen).toEqual(["next x", "next again", "complete"]);
    expect(failed.seen).toEqual(["error beforeDispatch bug"]);
    testScheduler().run(({ expectObservable }) => {
      const failing = new Pipeline().use("beforeSend", mergeMap(() => throwError(() => new Error("bug"))));
      const message = { reply_to: "e1", platform: "telegram", channel: { id: "c" }, content: { type: "text" as const, text: "m" } };
      expectObservable(failing.run("beforeSend", message)).toBe("#", undefined, new StageError("beforeSend"));
    });
  });

  it("hands back what cancels a value still in an asynchronous stage, and reports nothing after it is cancelled", () => {
    testScheduler().run(({ flush }) => {
      const { observer, seen } = recorder();
      const running = new Pipeline().use("beforeDispatch", delay(5)).runValue("beforeDispatch", text("slow"), observer);
      expect(running).toBeDefined();
      running?.unsubscribe();
      flush();
      expect(seen).toEqual([]);
    });
    testScheduler().run(({ flush }) => {
      const { observer, seen } = recorder();
      new Pipeline().use("beforeDispatch", delay(5)).runValue("beforeDispatch", text("slow"), observer);
      flush();
      expect(seen).toEqual(["next slow", "complete"]);
    });
  });

  it("refuses an unknown stage name with the list of stages", () => {
    expect(() => new Pipeline().use("afterSend" as "beforeSend", shout as never)).toThrow(/unknown pipeline stage "afterSend"; stages are afterIngress, beforeDispatch, beforeSend/);
    expect(() => new Pipeline().isEmpty("nope" as "beforeSend")).toThrow(TypeError);
  });
});
