import { describe, expect, it } from "vitest";
import { maskSecrets, resolveConfig } from "../../src/config/index.js";

describe("maskSecrets", () => {
  it("masks tokens, passwords and agent env values that are set", () => {
    const config = resolveConfig(
      {
        gateway: { url: "ws://gw/ws", token: "gw-secret" },
        dev_gateway: { token: "dev-secret" },
        bus: { token: "bus-token", password: "bus-password" },
        agent: { env: { API_KEY: "sk-1", EMPTY: "" } },
      },
      { env: {} },
    );
    const masked = maskSecrets(config);
    expect(masked.gateway?.token).toBe("***");
    expect(masked.dev_gateway.token).toBe("***");
    expect(masked.bus.token).toBe("***");
    expect(masked.bus.password).toBe("***");
    expect(masked.agent.env).toEqual({ API_KEY: "***", EMPTY: "***" });
    expect(masked.gateway?.url).toBe("ws://gw/ws");
  });

  it("leaves unset secrets unset and an absent gateway absent", () => {
    const masked = maskSecrets(resolveConfig({}, { env: {} }));
    expect(masked.gateway).toBeUndefined();
    expect(masked.dev_gateway.token).toBeUndefined();
    expect(masked.bus.token).toBeUndefined();
    expect(masked.bus.password).toBeUndefined();
    expect(masked.agent.env).toEqual({});
    expect(resolveConfig({ gateway: { url: "ws://x" } }, { env: {} }).gateway?.token).toBeUndefined();
    expect(maskSecrets(resolveConfig({ gateway: { url: "ws://x" } }, { env: {} })).gateway?.token).toBeUndefined();
  });

  it("does not mutate its input", () => {
    const config = resolveConfig({ gateway: { url: "ws://x", token: "t" }, agent: { env: { K: "v" } } }, { env: {} });
    const before = structuredClone(config);
    const masked = maskSecrets(config);
    expect(config).toEqual(before);
    expect(masked).not.toBe(config);
    expect(masked.agent).not.toBe(config.agent);
  });
});
