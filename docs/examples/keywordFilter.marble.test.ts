import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "turnstream/operators";
import { createTestScheduler } from "turnstream/testing";
import { keywordFilter } from "./keywordFilter.js";

const event = (text: string): GatewayEvent => ({
  schema: "openab.gateway.event.v1",
  event_id: `evt-${text}`,
  timestamp: "",
  platform: "telegram",
  channel: { id: "c1", type: "dm" },
  sender: { id: "u1", name: "ann", display_name: "Ann", is_bot: false },
  content: { type: "text", text },
  mentions: [],
  message_id: "",
  proactive: false,
});

describe("keywordFilter", () => {
  it("drops matching events and keeps the others, in virtual time", () => {
    createTestScheduler(expect).run(({ cold, expectObservable }) => {
      const values = { a: event("hello"), b: event("Please UNSUBSCRIBE me"), c: event("flight?") };
      const events = cold("-a-b-c|", values);
      expectObservable(events.pipe(keywordFilter(["unsubscribe"]))).toBe("-a---c|", values);
    });
  });
});
