import { describe, expect, it } from "vitest";
import { lastValueFrom, Observable, timer, concatMap, type Observable as Obs } from "rxjs";
import type { HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import { GroupHistory } from "../../src/turn/groupHistory.js";
import type { HistoryKept } from "../../src/state/historyRecord.js";
import { MemoryHistoryStore, type HistoryStore } from "../../src/state/historyStore.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";

const group = { id: "g1", type: "group" };
const said = (id: string, text: string) => gatewayEvent({ event_id: `e${id}`, message_id: id, channel: group, content: { type: "text", text }, history: true });
const mention = gatewayEvent({ event_id: "e9", message_id: "9", channel: group, mentions: ["bot"], content: { type: "text", text: "@bot what do you think?" } });

/** A memory store whose appends land `delayMs` later, as a KV round trip would. */
class SlowStore implements HistoryStore {
  readonly inner = new MemoryHistoryStore();
  constructor(readonly delayMs: number) {}
  append(key: string, entry: HistoryEntry, limit: number): Obs<HistoryKept> {
    return timer(this.delayMs).pipe(concatMap(() => this.inner.append(key, entry, limit)));
  }
  read(key: string): Obs<readonly HistoryEntry[]> {
    return this.inner.read(key);
  }
  remove(key: string, packed: readonly HistoryEntry[]): Obs<never> {
    return this.inner.remove(key, packed);
  }
}

const done = (operation: Observable<never>) => lastValueFrom(operation, { defaultValue: undefined });

describe("GroupHistory", () => {
  it("gives a turn every message kept before it, even while their writes are still on their way", async () => {
    const history = new GroupHistory(new SlowStore(30), 10, captureLogs().logger);
    const writes = [done(history.keep(said("1", "the build is red"))), done(history.keep(said("2", "since this morning")))];
    // The mention's turn asks before either write landed: it waits for them.
    const earlier = await lastValueFrom(history.forTurn(mention));
    expect(earlier.map((entry) => entry.text)).toEqual(["the build is red", "since this morning"]);
    await Promise.all(writes);
  });

  it("forgets what a turn packed, so the next turn does not repeat it, and keeps what came since", async () => {
    const history = new GroupHistory(new MemoryHistoryStore(), 10, captureLogs().logger);
    await done(history.keep(said("1", "one")));
    const earlier = await lastValueFrom(history.forTurn(mention));
    await done(history.keep(said("2", "two")));
    await done(history.packed(mention, earlier));
    expect((await lastValueFrom(history.forTurn(mention))).map((entry) => entry.text)).toEqual(["two"]);
  });

  it("has no history outside a group's main channel, and does not read the store there", async () => {
    let reads = 0;
    const store = new MemoryHistoryStore();
    const counting: HistoryStore = { append: (k, e, l) => store.append(k, e, l), remove: (k, p) => store.remove(k, p), read: (k) => (reads++, store.read(k)) };
    const history = new GroupHistory(counting, 10, captureLogs().logger);
    expect(await lastValueFrom(history.forTurn(gatewayEvent()))).toEqual([]);
    expect(await lastValueFrom(history.forTurn(gatewayEvent({ channel: { ...group, thread_id: "t1" } })))).toEqual([]);
    expect(reads).toBe(0);
  });

  it("logs the messages dropped to keep a conversation within its byte budget, with how many and the sizes", async () => {
    const { logger, records } = captureLogs();
    const history = new GroupHistory(new MemoryHistoryStore({ maxBytes: 1_200 }), 10, logger);
    for (const id of ["1", "2", "3"]) await done(history.keep(said(id, "x".repeat(300))));
    expect(records.filter((r) => r.msg === "group history over its byte budget; oldest dropped")).toEqual([]);
    await done(history.keep(said("4", "x".repeat(300))));
    const [line, ...more] = records.filter((r) => r.msg === "group history over its byte budget; oldest dropped");
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 30, reason: "history_over_budget", event_id: "e4", dropped: 1, budget: 1_200 });
    expect(line?.bytes).toBeLessThanOrEqual(1_200);
    expect(JSON.stringify(line)).not.toContain("xxx");
    expect((await lastValueFrom(history.forTurn(mention))).map((entry) => entry.messageId)).toEqual(["2", "3", "4"]);
  });

  it("a failed write errors its keep, and does not hold the next one back", async () => {
    let fail = true;
    const store = new MemoryHistoryStore();
    const flaky: HistoryStore = {
      append: (k, e, l) => (fail ? ((fail = false), new Observable<HistoryKept>((s) => s.error(new Error("kv down")))) : store.append(k, e, l)),
      read: (k) => store.read(k),
      remove: (k, p) => store.remove(k, p),
    };
    const history = new GroupHistory(flaky, 10, captureLogs().logger);
    await expect(done(history.keep(said("1", "lost for now")))).rejects.toThrow("kv down");
    await done(history.keep(said("2", "kept")));
    expect((await lastValueFrom(history.forTurn(mention))).map((entry) => entry.text)).toEqual(["kept"]);
  });
});
