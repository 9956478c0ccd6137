import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { sessionKey, sessionKeyParts } from "../../../operators/dispatch/sessionKey.js";

const part = fc.oneof(fc.string({ unit: fc.constantFrom(":", "%", "3", "A", "a") }), fc.string({ unit: "binary" }));
/** A conversation: platform, channel, and a thread or none (absent, null or "" all mean none). */
const conversation = fc.record({
  platform: part,
  channel: part,
  thread: fc.oneof(fc.constant(undefined), fc.string({ minLength: 1, unit: "binary" }), fc.string({ minLength: 1, unit: fc.constantFrom(":", "%", "x") })),
});
const eventOf = ({ platform, channel, thread }: { platform: string; channel: string; thread: string | undefined }) => ({
  platform,
  channel: { id: channel, type: "group", ...(thread === undefined ? {} : { thread_id: thread }) },
});

describe("sessionKey", () => {
  it("is platform:channel: with an empty thread part outside a thread", () => {
    expect(sessionKey({ platform: "telegram", channel: { id: "c1", type: "dm" } })).toBe("telegram:c1:");
  });

  it("is platform:channel:thread in a thread", () => {
    expect(sessionKey({ platform: "telegram", channel: { id: "c1", type: "supergroup", thread_id: "t9" } })).toBe("telegram:c1:t9");
  });

  it("treats a null or empty thread id as no thread", () => {
    expect(sessionKey({ platform: "line", channel: { id: "c1", type: "group", thread_id: null } })).toBe("line:c1:");
    expect(sessionKey({ platform: "line", channel: { id: "c1", type: "group", thread_id: "" } })).toBe("line:c1:");
  });

  it("keeps the same thread id in two channels apart (Telegram topic ids repeat across chats)", () => {
    const a = sessionKey({ platform: "telegram", channel: { id: "-100111", type: "supergroup", thread_id: "7" } });
    const b = sessionKey({ platform: "telegram", channel: { id: "-100222", type: "supergroup", thread_id: "7" } });
    expect([a, b]).toEqual(["telegram:-100111:7", "telegram:-100222:7"]);
  });

  it("keeps a thread apart from a channel with the thread's id", () => {
    expect(sessionKey({ platform: "discord", channel: { id: "c1", type: "group", thread_id: "42" } })).not.toBe(
      sessionKey({ platform: "discord", channel: { id: "42", type: "group" } }),
    );
  });

  it("escapes ':' and '%' in every part, so a platform name cannot forge another platform's channel", () => {
    const colonPlatform = sessionKey({ platform: "a:b", channel: { id: "c", type: "dm" } });
    const colonChannel = sessionKey({ platform: "a", channel: { id: "b:c", type: "dm" } });
    expect([colonPlatform, colonChannel]).toEqual(["a%3Ab:c:", "a:b%3Ac:"]);
    expect(sessionKey({ platform: "p", channel: { id: "50%", type: "dm", thread_id: "x:y" } })).toBe("p:50%25:x%3Ay");
  });

  it("keeps unicode as it is", () => {
    expect(sessionKey({ platform: "line", channel: { id: "頻道", type: "group", thread_id: "🧵" } })).toBe("line:頻道:🧵");
  });

  test.prop([conversation, conversation], { numRuns: 5_000 })("gives distinct conversations distinct keys", (one, two) => {
    fc.pre(one.platform !== two.platform || one.channel !== two.channel || one.thread !== two.thread);
    expect(sessionKey(eventOf(one))).not.toBe(sessionKey(eventOf(two)));
  });

  // The collisions a plain join makes: one string of `:`s, cut at two different pairs of its colons.
  test.prop([fc.string({ unit: fc.constantFrom(":", "%", "a"), minLength: 3 }), fc.nat(), fc.nat(), fc.nat(), fc.nat()], { numRuns: 5_000 })(
    "keeps apart conversations whose parts joined plainly with ':' are the same string",
    (joined, i, j, k, l) => {
      const colons = [...joined].flatMap((char, at) => (char === ":" ? [at] : []));
      fc.pre(colons.length >= 3);
      const cut = (a: number, b: number) => {
        const [x, y] = [colons[a % colons.length], colons[b % colons.length]].sort((m, n) => (m as number) - (n as number)) as [number, number];
        return { platform: joined.slice(0, x), channel: joined.slice(x + 1, y), thread: joined.slice(y + 1) || undefined };
      };
      fc.pre(i % colons.length !== j % colons.length && k % colons.length !== l % colons.length);
      const [one, two] = [cut(i, j), cut(k, l)];
      fc.pre(one.platform !== two.platform || one.channel !== two.channel || one.thread !== two.thread);
      expect(`${one.platform}:${one.channel}:${one.thread ?? ""}`).toBe(`${two.platform}:${two.channel}:${two.thread ?? ""}`);
      expect(sessionKey(eventOf(one))).not.toBe(sessionKey(eventOf(two)));
    },
  );

  test.prop([conversation], { numRuns: 2_000 })("is read back by sessionKeyParts", (c) => {
    expect(sessionKeyParts(sessionKey(eventOf(c)))).toEqual(c);
  });
});

describe("sessionKeyParts", () => {
  it("reads a key's parts, the thread undefined when empty", () => {
    expect(sessionKeyParts("telegram:chat-1:T1")).toEqual({ platform: "telegram", channel: "chat-1", thread: "T1" });
    expect(sessionKeyParts("discord:123:")).toEqual({ platform: "discord", channel: "123", thread: undefined });
    expect(sessionKeyParts("a%3Ab:c%25:")).toEqual({ platform: "a:b", channel: "c%", thread: undefined });
  });

  it("refuses what sessionKey never makes: an old two-part key, arbitrary strings", () => {
    for (const key of ["telegram:T1", "a", "", "a:b:c:d", "a:b%zz:c"]) expect(sessionKeyParts(key)).toBeUndefined();
  });
});
