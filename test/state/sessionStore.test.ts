import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestScheduler } from "rxjs/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore, type FileSessionStoreOptions, MemorySessionStore } from "../../src/state/sessionStore.js";
import { describeSessionStoreContract } from "./contracts/sessionStoreContract.js";
import { sessionsAsPromises } from "./contracts/storePromises.js";

/** A file store whose operations are awaited one by one (each subscribes when called). */
const fileStore = (path: string, options?: FileSessionStoreOptions) => sessionsAsPromises(new FileSessionStore(path, options));

describe("MemorySessionStore", () => {
  describe("the SessionStore contract", () => {
    describeSessionStoreContract(() => new MemorySessionStore());
  });

  it("keeps separate instances separate", async () => {
    const one = sessionsAsPromises(new MemorySessionStore());
    await one.set("k", "v");
    await expect(sessionsAsPromises(new MemorySessionStore()).get("k")).resolves.toBeUndefined();
  });

  it("answers synchronously on subscription (marble tests drive it in virtual time)", () => {
    const store = new MemorySessionStore();
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ expectObservable }) => {
      expectObservable(store.get("k")).toBe("(u|)", { u: undefined });
      expectObservable(store.set("k", "sess_a")).toBe("|");
      expectObservable(store.get("k")).toBe("(a|)", { a: "sess_a" });
      expectObservable(store.delete("k")).toBe("|");
      expectObservable(store.get("k")).toBe("(u|)", { u: undefined });
    });
  });
});

describe("FileSessionStore", () => {
  let dir: string;
  let path: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "turnstream-sessions-"));
    path = join(dir, "sessions.json");
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe("the SessionStore contract", () => {
    describeSessionStoreContract(() => new FileSessionStore(path));
  });

  const readJson = async (file = path): Promise<unknown> => JSON.parse(await readFile(file, "utf8")) as unknown;
  /** The file as version 2 writes it: current keys, and `legacy` only while old-format keys wait. */
  const v2 = (sessions: Record<string, string>, legacy?: Record<string, string>) => ({ version: 2, sessions, ...(legacy === undefined ? {} : { legacy }) });

  it("treats a missing file as empty and does not create it on get or on deleting an unknown key", async () => {
    const store = fileStore(path);
    await expect(store.get("telegram:1")).resolves.toBeUndefined();
    await store.delete("telegram:1");
    expect(await readdir(dir)).toEqual([]);
  });

  it("persists set and delete across a new instance reading the same path", async () => {
    const writer = fileStore(path);
    await writer.set("telegram:1", "sess_a");
    await writer.set("discord:2", "sess_b");

    const reader = fileStore(path);
    await expect(reader.get("telegram:1")).resolves.toBe("sess_a");
    await expect(reader.get("discord:2")).resolves.toBe("sess_b");
    await expect(reader.get("slack:3")).resolves.toBeUndefined();

    await reader.delete("telegram:1");
    const third = fileStore(path);
    await expect(third.get("telegram:1")).resolves.toBeUndefined();
    await expect(third.get("discord:2")).resolves.toBe("sess_b");
  });

  it("leaves a complete version-2 file of { sessionKey: sessionId } after each write", async () => {
    const store = fileStore(path);
    await store.set("a", "1");
    expect(await readJson()).toStrictEqual(v2({ a: "1" }));
    await store.set("b", "2");
    expect(await readJson()).toStrictEqual(v2({ a: "1", b: "2" }));
    await store.set("a", "3");
    expect(await readJson()).toStrictEqual(v2({ a: "3", b: "2" }));
    await store.delete("a");
    expect(await readJson()).toStrictEqual(v2({ b: "2" }));
    await store.delete("b");
    expect(await readJson()).toStrictEqual(v2({}));
  });

  it("keeps keys and ids with awkward characters intact", async () => {
    const key = 'telegram:-100123:thread "7"\n好';
    await fileStore(path).set(key, "sess/🎉\\x");
    await expect(fileStore(path).get(key)).resolves.toBe("sess/🎉\\x");
  });

  it("lands all of 50 concurrent sets (writes are serialized)", async () => {
    const store = fileStore(path);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.set(`key-${i}`, `sess-${i}`)));
    const expected = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key-${i}`, `sess-${i}`]));
    expect(await readJson()).toStrictEqual(v2(expected));
    const reader = fileStore(path);
    for (let i = 0; i < 50; i++) await expect(reader.get(`key-${i}`)).resolves.toBe(`sess-${i}`);
  });

  it("applies concurrent changes in call order", async () => {
    const store = fileStore(path);
    await Promise.all([store.set("a", "1"), store.set("b", "2"), store.delete("a"), store.set("b", "3"), store.set("c", "4")]);
    expect(await readJson()).toStrictEqual(v2({ b: "3", c: "4" }));
  });

  it("leaves no temporary files behind", async () => {
    const store = fileStore(path);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`key-${i}`, `sess-${i}`)));
    await store.delete("key-0");
    const files = await readdir(dir);
    expect(files).toEqual(["sessions.json"]);
    expect(files.filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("creates missing parent directories", async () => {
    const nested = join(dir, "state", "turnstream", "sessions.json");
    await fileStore(nested).set("k", "v");
    expect(await readJson(nested)).toStrictEqual(v2({ k: "v" }));
    await expect(fileStore(nested).get("k")).resolves.toBe("v");
  });

  it.skipIf(process.platform === "win32")("writes the file readable by its owner only (it maps users to sessions)", async () => {
    await fileStore(path).set("k", "v");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  describe("a file an earlier turnstream wrote ({ \"platform:thread_or_channel\": sessionId })", () => {
    const oldFile = { "telegram:T1": "sess_topic", "discord:123": "sess_channel", "a:b:c": "sess_colon" };
    beforeEach(async () => {
      await writeFile(path, `${JSON.stringify(oldFile, null, 2)}\n`);
    });

    it("reports how many old-format keys it holds, once per load, and changes nothing by reading", async () => {
      const counts: number[] = [];
      const store = fileStore(path, { onLegacyKeys: (count) => counts.push(count) });
      await expect(store.get("slack:C9:")).resolves.toBeUndefined();
      await expect(store.get("slack:C8:")).resolves.toBeUndefined();
      expect(counts).toEqual([3]);
      expect(await readJson()).toStrictEqual(oldFile);
    });

    it("hands a thread's old id to the first channel that asks for that thread, and to no other", async () => {
      const store = fileStore(path);
      await expect(store.get("telegram:chat-A:T1")).resolves.toBe("sess_topic");
      await expect(store.get("telegram:chat-B:T1")).resolves.toBeUndefined();
      await expect(store.get("telegram:chat-A:T1")).resolves.toBe("sess_topic");
      expect(await readJson()).toStrictEqual(v2({ "telegram:chat-A:T1": "sess_topic" }, { "discord:123": "sess_channel", "a:b:c": "sess_colon" }));
      // A restart keeps the claim: the other chat still gets no one else's session.
      const again = fileStore(path);
      await expect(again.get("telegram:chat-B:T1")).resolves.toBeUndefined();
      await expect(again.get("telegram:chat-A:T1")).resolves.toBe("sess_topic");
    });

    it("hands a channel's old id to the conversation outside a thread in that channel", async () => {
      const store = fileStore(path);
      await expect(store.get("discord:123:")).resolves.toBe("sess_channel");
      expect(await readJson()).toStrictEqual(v2({ "discord:123:": "sess_channel" }, { "telegram:T1": "sess_topic", "a:b:c": "sess_colon" }));
    });

    it("matches an old key with ':' in a part by the exact old spelling", async () => {
      const store = fileStore(path);
      await expect(store.get("a:x:b%3Ac")).resolves.toBe("sess_colon"); // platform a, thread "b:c": old key a:b:c
      await expect(store.get("a%3Ab:x:c")).resolves.toBeUndefined(); // platform a:b, thread c: old key a:b:c, already claimed
    });

    it("never reads an old key as a current one, even when it has three parts", async () => {
      await expect(fileStore(path).get("a:b:c")).resolves.toBeUndefined();
    });

    it("keeps the current key's id over an old one", async () => {
      const store = fileStore(path);
      await store.set("telegram:chat-A:T1", "sess_new");
      await expect(store.get("telegram:chat-A:T1")).resolves.toBe("sess_new");
      expect(await readJson()).toMatchObject({ legacy: { "telegram:T1": "sess_topic" } });
    });

    it("drops the old counterpart on delete, so /reset before any turn starts afresh", async () => {
      const store = fileStore(path);
      await store.delete("telegram:chat-A:T1");
      await expect(store.get("telegram:chat-A:T1")).resolves.toBeUndefined();
      await expect(store.get("telegram:chat-B:T1")).resolves.toBeUndefined();
      expect(await readJson()).toStrictEqual(v2({}, { "discord:123": "sess_channel", "a:b:c": "sess_colon" }));
    });

    it("leaves out `legacy` once every old key is claimed", async () => {
      const store = fileStore(path);
      for (const key of ["telegram:c:T1", "discord:123:", "a%3Ab:q:c"]) await store.get(key);
      expect(await readJson()).toStrictEqual(v2({ "telegram:c:T1": "sess_topic", "discord:123:": "sess_channel", "a%3Ab:q:c": "sess_colon" }));
    });
  });

  describe("a corrupt file", () => {
    it.each([
      ["not JSON (a half-written file)", '{"telegram:1": "sess_a", "disc'],
      ["empty", ""],
      ["a JSON array", '["sess_a"]'],
      ["JSON null", "null"],
      ["a JSON string", '"sess_a"'],
      ["an object with a non-string id", '{"telegram:1": "sess_a", "discord:2": {"id": "sess_b"}}'],
      ["a version this turnstream does not know (a newer one's)", '{"version": 3, "sessions": {"telegram:1:": "sess_a"}}'],
      ["version 2 without sessions", '{"version": 2}'],
      ["version 2 with a non-string id", '{"version": 2, "sessions": {"telegram:1:": 7}}'],
      ["version 2 with legacy that is not an object of ids", '{"version": 2, "sessions": {}, "legacy": ["sess_a"]}'],
    ])("makes get and set reject when it is %s, and is never overwritten", async (_name, content) => {
      await writeFile(path, content);
      const store = fileStore(path);
      await expect(store.get("telegram:1")).rejects.toThrow();
      await expect(store.set("slack:3", "sess_c")).rejects.toThrow();
      await expect(store.delete("telegram:1")).rejects.toThrow();
      expect(await readFile(path, "utf8")).toBe(content);
      expect(await readdir(dir)).toEqual(["sessions.json"]);
    });

    it("rejects with a SyntaxError naming the file when the JSON has the wrong shape", async () => {
      await writeFile(path, "[]");
      await expect(fileStore(path).get("k")).rejects.toThrow(new SyntaxError(`${path} is not a JSON object of session ids`));
    });

    it("is read again on the next call, so a repaired file works without a restart", async () => {
      await writeFile(path, "{oops");
      const store = fileStore(path);
      await expect(store.get("telegram:1")).rejects.toBeInstanceOf(SyntaxError);
      await writeFile(path, JSON.stringify(v2({ "telegram:1": "sess_a" })));
      await expect(store.get("telegram:1")).resolves.toBe("sess_a");
      await store.set("discord:2", "sess_b");
      expect(await readJson()).toStrictEqual(v2({ "telegram:1": "sess_a", "discord:2": "sess_b" }));
    });

    it("rejects when the path cannot be read as a file", async () => {
      const store = fileStore(dir);
      await expect(store.get("k")).rejects.toMatchObject({ code: "EISDIR" });
    });
  });
});
