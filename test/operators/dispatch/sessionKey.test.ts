import { describe, expect, it } from "vitest";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";

describe("sessionKey", () => {
  it("is platform:channel without a thread", () => {
    expect(sessionKey({ platform: "telegram", channel: { id: "c1", type: "dm" } })).toBe("telegram:c1");
  });

  it("is platform:thread when the event is in a thread", () => {
    expect(sessionKey({ platform: "telegram", channel: { id: "c1", type: "supergroup", thread_id: "t9" } })).toBe(
      "telegram:t9",
    );
  });

  it("falls back to the channel for a null or empty thread id", () => {
    expect(sessionKey({ platform: "line", channel: { id: "c1", type: "group", thread_id: null } })).toBe("line:c1");
    expect(sessionKey({ platform: "line", channel: { id: "c1", type: "group", thread_id: "" } })).toBe("line:c1");
  });
});
