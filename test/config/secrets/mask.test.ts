import { describe, expect, it } from "vitest";
import { maskSecrets, resolveConfig, secretValues } from "../../../src/config/index.js";

describe("maskSecrets", () => {
  it("masks tokens, passwords and agent env values that are set", () => {
    const config = resolveConfig(
      {
        gateway: { url: "ws://gw/ws", token: "gw-secret" },
        dev_gateway: { token: "dev-secret" },
        bus: { token: "bus-token" },
        agent: { env: { API_KEY: "sk-1", EMPTY: "" } },
      },
      { env: {} },
    );
    const masked = maskSecrets(config);
    expect(masked.gateway?.token).toBe("***");
    expect(masked.dev_gateway.token).toBe("***");
    expect(masked.bus.token).toBe("***");
    expect(maskSecrets(resolveConfig({ bus: { user: "edge", password: "bus-password" } }, { env: {} })).bus).toMatchObject({ user: "edge", password: "***" });
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

  it("masks the credentials of every URL: the URL keys and any URL in another value", () => {
    const config = resolveConfig(
      {
        gateway: { url: "ws://gw:8080/ws?token=url-token-1" },
        bus: { url: "nats://edge:nats-pw-2@nats:4222" },
        agent: { args: ["--base-url", "https://user:arg-pw-3@api.example.com/v1?api_key=k-4"] },
      },
      { env: {} },
    );
    const masked = maskSecrets(config);
    expect(masked.gateway?.url).toBe("ws://gw:8080/ws?token=***");
    expect(masked.bus.url).toBe("nats://***@nats:4222");
    expect(masked.agent.args).toEqual(["--base-url", "https://***@api.example.com/v1?api_key=***"]);
    expect(JSON.stringify(masked)).not.toMatch(/url-token-1|nats-pw-2|arg-pw-3|k-4/);
  });
});

describe("secretValues", () => {
  it("lists every secret value the config holds, URL credentials decoded, empty ones left out", () => {
    const config = resolveConfig(
      {
        gateway: { url: "ws://gw/ws?token=in%20url", platform: "x" },
        dev_gateway: { token: "devtok" },
        bus: { url: "nats://edge:p%40ss@nats:4222" },
        agent: { env: { API_KEY: "sk-1", EMPTY: "" } },
      },
      { env: {} },
    );
    expect(secretValues(config).sort()).toEqual(["devtok", "edge", "in url", "p@ss", "sk-1"].sort());
    expect(secretValues(resolveConfig({ bus: { token: "t0k", url: "nats://h:1" } }, { env: {} }))).toEqual(["t0k"]);
  });
});

