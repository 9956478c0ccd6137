import { describe, expect, it } from "vitest";
import { Fifo } from "../../../operators/dispatch/fifo.js";

describe("Fifo", () => {
  it("hands items back in arrival order, with length and peek", () => {
    const fifo = new Fifo<string>();
    expect(fifo.shift()).toBeUndefined();
    fifo.push("a");
    fifo.push("b");
    expect(fifo.length).toBe(2);
    expect(fifo.peek()).toBe("a");
    expect(fifo.shift()).toBe("a");
    fifo.push("c");
    expect([fifo.shift(), fifo.shift(), fifo.shift()]).toEqual(["b", "c", undefined]);
    expect(fifo.length).toBe(0);
  });

  it("keeps order across compactions while a long queue is drained and refilled", () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3_000; i++) fifo.push(next++);
      for (let i = 0; i < 2_500; i++) out.push(fifo.shift() as number);
    }
    while (fifo.length > 0) out.push(fifo.shift() as number);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
  });

  it("drains a million items", () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 1_000_000; i++) fifo.push(i);
    let sum = 0;
    for (let item = fifo.shift(); item !== undefined; item = fifo.shift()) sum += item;
    expect(sum).toBe((999_999 * 1_000_000) / 2);
  });
});
