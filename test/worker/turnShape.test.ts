import { describe, expect, it } from "vitest";
import { gatewayEvent } from "../helpers/events.js";
import { held } from "../helpers/ledgers.js";
import { turnBatchOf, turnEventOf } from "../../src/worker/turnShape.js";

describe("turnShape", () => {
  const first = held(gatewayEvent({ event_id: "a", text: "one" }), 1).message;
  const second = held(gatewayEvent({ event_id: "b", text: "two" }), 1).message;

  it("runs a lone message as itself, and several (or a capped one) as the collect prompt on the last", () => {
    expect(turnEventOf([first], { dropped: [], marked: false })).toBe(first.data);
    const event = turnEventOf([first, second], { dropped: [], marked: false });
    expect(event.event_id).toBe("b");
    expect(event.content.text).toContain("one");
    expect(event.content.text).toContain("two");
    expect(turnEventOf([first], { dropped: ["dropped one"], marked: false }).content.text).toContain("dropped one");
  });

  it("under OpenAB batching runs the last message, with the others and each wait as its batch", () => {
    const shape = { dropped: ["x"], marked: false, batch: { laneKey: "lane", receivedAt: [100, 250] } };
    expect(turnEventOf([first, second], shape)).toBe(second.data);
    expect(turnBatchOf([first, second], shape, 400)).toEqual({ earlier: [first.data], dropped: ["x"], laneKey: "lane", waitMs: [300, 150] });
    expect(turnBatchOf([first, second], { dropped: [], marked: false }, 400)).toBeUndefined();
  });
});
