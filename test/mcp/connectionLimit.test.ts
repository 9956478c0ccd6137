import { describe, expect, it } from "vitest";
import { ConnectionLimit, connectionLimitFor } from "../../src/mcp/connectionLimit.js";

class Conn {
  destroyed = false;
  constructor(readonly name: string) {}
  destroy(): void {
    this.destroyed = true;
  }
}

describe("ConnectionLimit", () => {
  it("admits up to the limit, then closes the oldest unauthenticated connection to make room", () => {
    let closed = 0;
    const limit = new ConnectionLimit<Conn>(3, () => closed++);
    const [a, b, c, d] = ["a", "b", "c", "d"].map((name) => new Conn(name)) as [Conn, Conn, Conn, Conn];
    for (const conn of [a, b, c]) expect(limit.admit(conn)).toBe(true);
    limit.trust(a);
    expect(limit.admit(d)).toBe(true);
    // a authenticated, so b (the oldest still pending) made room.
    expect([a, b, c, d].map((conn) => conn.destroyed)).toEqual([false, true, false, false]);
    expect(limit.open).toBe(3);
    expect(closed).toBe(1);
  });

  it("refuses a new connection when every open one is authenticated", () => {
    let closed = 0;
    const limit = new ConnectionLimit<Conn>(2, () => closed++);
    const [a, b, c] = ["a", "b", "c"].map((name) => new Conn(name)) as [Conn, Conn, Conn];
    limit.admit(a);
    limit.admit(b);
    limit.trust(a);
    limit.trust(b);
    expect(limit.admit(c)).toBe(false);
    expect(c.destroyed).toBe(true);
    expect([a.destroyed, b.destroyed]).toEqual([false, false]);
    expect(closed).toBe(1);
    // One closes: room again.
    limit.release(a);
    expect(limit.admit(new Conn("e"))).toBe(true);
    expect(limit.open).toBe(2);
  });

  it("closes everything on closeAll", () => {
    const limit = new ConnectionLimit<Conn>(4, () => undefined);
    const conns = ["a", "b"].map((name) => new Conn(name));
    for (const conn of conns) limit.admit(conn);
    limit.trust(conns[0] as Conn);
    limit.closeAll();
    expect(conns.every((conn) => conn.destroyed)).toBe(true);
    expect(limit.open).toBe(0);
  });

  it("scales with the pool: twice max_sessions and 32 spare", () => {
    expect(connectionLimitFor(10)).toBe(52);
    expect(connectionLimitFor(1)).toBe(34);
  });
});
