import { describe, expect, it } from "vitest";
import { MsgIdIndex } from "../../src/bus/msgIdIndex.js";

describe("MsgIdIndex", () => {
  /** The msgIds by ref, as a ring would hold them. */
  const ring = (ids: Map<number, string>) => ({ msgIdOf: (ref: number) => ids.get(ref) });

  it("tells apart msgIds that share a hash, and closes each gap a removal leaves, across the segment's end", () => {
    const index = new MsgIdIndex(1);
    const ids = new Map<number, string>();
    // One segment (same top bits). Two hashes whose home is the segment's last slot at every size,
    // so their run wraps around to slot 0, and two whose homes are slots 0 and 1, inside the wrapped run.
    const hashes = [0x0100007f, 0x0100017f, 0x01000000, 0x01000001];
    const hashOf = (ref: number) => hashes[ref % 4] as number;
    for (let ref = 1; ref <= 40; ref++) {
      ids.set(ref, `id-${ref}`);
      index.insert(hashOf(ref), ref);
    }
    const look = () => [...ids].every(([ref, id]) => index.find(hashOf(ref), id, ring(ids)) === ref);
    expect(look()).toBe(true);
    for (const ref of [4, 8, 1, 2, 40, 17, 3, 39, 20, 21, 5, 6, 7]) {
      index.remove(hashOf(ref), ref);
      ids.delete(ref);
      expect(look()).toBe(true);
    }
    expect(index.find(hashOf(1), "id-1", ring(ids))).toBe(0);
  });

  it("says when a probe ran long", () => {
    const index = new MsgIdIndex(1);
    const results = Array.from({ length: 70 }, (_, i) => index.insert(0x12345678, i + 1));
    expect(results.indexOf(false)).toBe(65); // the 66th entry probed past 64 slots
  });

  it("grows and shrinks a segment without losing an entry", () => {
    const index = new MsgIdIndex(7);
    const ids = new Map<number, string>();
    for (let ref = 1; ref <= 5_000; ref++) {
      const id = `t:${ref}`;
      ids.set(ref, id);
      index.insert(index.hash(id), ref);
    }
    for (let ref = 1; ref <= 4_990; ref++) {
      index.remove(index.hash(`t:${ref}`), ref);
      ids.delete(ref);
    }
    for (const [ref, id] of ids) expect(index.find(index.hash(id), id, ring(ids))).toBe(ref);
    expect(index.find(index.hash("t:1"), "t:1", ring(ids))).toBe(0);
  });
});
