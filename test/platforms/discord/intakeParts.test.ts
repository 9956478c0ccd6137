import type { GatewayMessageCreateDispatchData } from "@discordjs/core";
import { describe, expect, it } from "vitest";
import { identifyThrottle } from "../../../src/platforms/discord/identifyThrottle.js";
import { threadName } from "../../../src/platforms/discord/messageIntake.js";
import { eventChannel, messageEvent } from "../../../src/platforms/discord/messageEvent.js";
import { SerialByKey } from "../../../src/platforms/discord/serialByKey.js";

describe("SerialByKey", () => {
  it("runs one key's tasks in order, other keys alongside, and forgets a key once idle", async () => {
    const serial = new SerialByKey();
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    void serial.run("a", async () => {
      await gate;
      seen.push("a1");
    });
    void serial.run("a", async () => void seen.push("a2"));
    await serial.run("b", async () => void seen.push("b1"));
    expect(seen).toEqual(["b1"]);
    release();
    await serial.idle();
    expect(seen).toEqual(["b1", "a1", "a2"]);
    expect(serial.size).toBe(0);
  });

  it("a failing task does not stop the next", async () => {
    const serial = new SerialByKey();
    const seen: string[] = [];
    void serial.run("a", async () => {
      throw new Error("boom");
    });
    await serial.run("a", async () => void seen.push("after"));
    expect(seen).toEqual(["after"]);
  });
});

describe("identifyThrottle", () => {
  it("lets the first IDENTIFY through at once and holds the next until the interval passed", async () => {
    let now = 0;
    const throttle = identifyThrottle(50, () => now);
    const signal = new AbortController().signal;
    await throttle.waitForIdentify(0, signal);
    now = 10;
    const started = performance.now();
    await throttle.waitForIdentify(0, signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });
});

describe("the event of a message", () => {
  const message = {
    id: "900",
    channel_id: "900",
    timestamp: "2026-12-06T08:00:00.000000+00:00",
    author: { id: "5", username: "alice", global_name: "Alice", discriminator: "0", avatar: null },
    member: { nick: null },
    mentions: [{ id: "1", username: "turnstream" }],
    attachments: [],
  } as unknown as GatewayMessageCreateDispatchData;

  it("in a thread: the parent channel and the thread; the display name falls back to the global name", () => {
    expect(messageEvent(message, "hi", { kind: "thread", parentId: "100", threadId: "900" }, [])).toMatchObject({
      event_id: "dc900",
      timestamp: "2026-12-06T08:00:00.000000+00:00",
      channel: { id: "100", type: "thread", thread_id: "900" },
      sender: { id: "5", name: "alice", display_name: "Alice", is_bot: false },
      content: { type: "text", text: "hi" },
      mentions: ["turnstream"],
    });
  });

  it("a DM: its channel, no thread (build_sender_context: not in thread → thread_id absent)", () => {
    expect(eventChannel({ kind: "dm", channelId: "300" })).toEqual({ id: "300", type: "dm" });
  });

  it("thread names: the prompt's, else the first file's, else …", () => {
    expect(threadName("hello", { attachments: [] })).toBe("hello");
    expect(threadName("", { attachments: [{ filename: "notes.txt" }] } as never)).toBe("notes.txt");
    expect(threadName("", { attachments: [] })).toBe("…");
  });
});
