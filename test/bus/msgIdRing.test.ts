import { describe, expect, it } from "vitest";
import { MsgIdRing } from "../../src/bus/msgIdRing.js";

describe("MsgIdRing", () => {
  it("appends and drops in order across chunk ends, refs naming the same entries", () => {
    const ring = new MsgIdRing();
    const refs: number[] = [];
    for (let i = 0; i < 3_000; i++) refs.push(ring.push(`m${i}`, i, i * 10, i));
    expect(ring.size).toBe(3_000);
    for (let i = 0; i < 2_500; i++) {
      expect(ring.oldestAt()).toBe(i);
      expect(ring.oldestRef()).toBe(refs[i]);
      expect(ring.oldestHash()).toBe(i);
      ring.shift();
    }
    expect(ring.msgIdOf(refs[2_999] as number)).toBe("m2999");
    expect(ring.seqOf(refs[2_500] as number)).toBe(25_000);
    for (let i = 3_000; i < 5_000; i++) refs.push(ring.push(`m${i}`, i, i * 10, i));
    while (ring.size > 0) ring.shift();
    expect(ring.oldestAt()).toBeUndefined();
    const ref = ring.push("again", 1, 2, 3);
    expect(ring.msgIdOf(ref)).toBe("again");
  });
});
