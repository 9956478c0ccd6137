import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/index.js";
import { problemsOf } from "../problemsOf.js";

const TOKEN = "tok-9f3a-secret";
const PASSWORD = "pw-77c1-secret";

describe("cross-key checks in resolveConfig", () => {
  it.each([
    [{ bus: { url: "nats://h:1", token: TOKEN, user: "u", password: PASSWORD } }, "NATS credentials are given twice (bus.token and bus.user/bus.password): keep one of them"],
    [{ bus: { url: `nats://u:${PASSWORD}@h:1`, token: TOKEN } }, "NATS credentials are given twice (bus.token and user info in bus.url): keep one of them"],
    [{ bus: { url: `nats://${TOKEN}@h:1`, creds: "/etc/nats/user.creds" } }, "NATS credentials are given twice (bus.creds and user info in bus.url): keep one of them"],
    [{ bus: { url: "nats://h:1", user: "u" } }, "bus.user and bus.password go together: set both or neither"],
    [{ bus: { password: PASSWORD } }, "bus.user and bus.password go together: set both or neither"],
  ])("refuses %j with one line naming keys, never values", (input, message) => {
    const problems = problemsOf(input);
    expect(problems).toEqual([{ path: "bus", message }]);
    expect(JSON.stringify(problems)).not.toMatch(/tok-9f3a|pw-77c1/);
  });

  it("refuses a gateway token given both as gateway.token and as ?token= in gateway.url", () => {
    expect(problemsOf({ gateway: { url: `ws://gw/ws?token=${TOKEN}`, token: "other" } })).toEqual([
      { path: "gateway", message: "the gateway token is given twice (gateway.token and ?token= in gateway.url): keep one of them" },
    ]);
    expect(problemsOf({ gateway: { url: `ws://gw/ws?a=1&token=${TOKEN}`, token: "" } })).toHaveLength(1);
  });

  it("accepts each way of giving credentials once", () => {
    expect(() => resolveConfig({ gateway: { url: `ws://gw/ws?token=${TOKEN}` } }, { env: {} })).not.toThrow();
    expect(() => resolveConfig({ gateway: { url: "ws://gw/ws?tokens=1", token: TOKEN } }, { env: {} })).not.toThrow();
    for (const bus of [{ token: TOKEN }, { user: "u", password: PASSWORD }, { creds: "/x.creds" }, { url: `nats://u:${PASSWORD}@h:1` }]) {
      expect(() => resolveConfig({ bus: { url: "nats://h:1", ...bus } }, { env: {} }), JSON.stringify(bus)).not.toThrow();
    }
  });

  it("a check that reads a bad value does not run: the bad value is reported, not a cross-key problem on top", () => {
    expect(problemsOf({ bus: { url: "nats://h:1", token: 5, user: "u", password: PASSWORD } })).toEqual([
      { path: "bus.token", message: "expected a string, got an integer (value hidden)" },
    ]);
  });
});
