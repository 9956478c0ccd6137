import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { problemsOf } from "./problemsOf.js";

const gateway = (extra: Record<string, unknown>) => ({ gateway: { url: "ws://x", ...extra } });

describe("[gateway] keepalive_secs", () => {
  it("defaults to 30 s and takes fractions and 0 (no pings)", () => {
    expect(resolveConfig(gateway({}), { env: {} }).gateway?.keepalive_secs).toBe(30);
    expect(resolveConfig(gateway({ keepalive_secs: 0.5 }), { env: {} }).gateway?.keepalive_secs).toBe(0.5);
    expect(resolveConfig(gateway({ keepalive_secs: 0 }), { env: {} }).gateway?.keepalive_secs).toBe(0);
  });

  it.each([
    [-1, "-1 is not allowed; expected a number ≥ 0 (0 disables the keepalive)"],
    ["30", `expected a number ≥ 0 (0 disables the keepalive), got string "30"`],
  ])("refuses %j", (value, message) => {
    expect(problemsOf(gateway({ keepalive_secs: value }))).toEqual([{ path: "gateway.keepalive_secs", message }]);
  });
});
