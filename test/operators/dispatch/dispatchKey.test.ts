import { describe, expect, it } from "vitest";
import { dispatchKey } from "../../../operators/dispatch/dispatchKey.js";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import { gatewayEvent } from "../../helpers/events.js";

describe("dispatchKey (§9 dispatcher keys)", () => {
  const event = gatewayEvent({ channel: { id: "chat-1", type: "group", thread_id: "T1" } });

  it("is the session key under per-message and per-thread: every sender in a thread shares one lane", () => {
    expect(dispatchKey(event, "per-message")).toBe(sessionKey(event));
    expect(dispatchKey(event, "per-thread")).toBe("telegram:chat-1:T1");
  });

  it("adds the sender under per-lane, escaped so no sender id can spell another lane", () => {
    expect(dispatchKey(event, "per-lane")).toBe("telegram:chat-1:T1:@test-user");
    const colon = gatewayEvent({ sender: { id: "a:b", name: "", display_name: "", is_bot: false } });
    expect(dispatchKey(colon, "per-lane")).toBe("telegram:test-channel::@a%3Ab");
  });

  it("never collides with a worker's one-off lane (`<session key>:<seq>`): a sender lane starts with @", () => {
    const digits = gatewayEvent({ sender: { id: "17", name: "", display_name: "", is_bot: false } });
    expect(dispatchKey(digits, "per-lane")).not.toBe(`${sessionKey(digits)}:17`);
  });

  it("puts a cron job's firings in the job's own lane, whatever the mode: two parts, never a session's three", () => {
    const fired = { ...event, cron: { job: "a:b", minute: "2026-12-06T09:00:00.000Z" } };
    for (const mode of ["per-message", "per-thread", "per-lane"] as const) expect(dispatchKey(fired, mode)).toBe("cron:a%3Ab");
  });
});
