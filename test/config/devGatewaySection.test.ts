import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { problemsOf } from "./problemsOf.js";

describe("[dev_gateway] token and allowed_hosts", () => {
  it("accepts a URL-safe token and host names, IPv4 and bracketed IPv6", () => {
    const config = resolveConfig({ dev_gateway: { token: "Ab-1._~z", allowed_hosts: ["devbox.local", "192.168.1.5", "[fe80::1]"] } }, { env: {} });
    expect(config.dev_gateway.token).toBe("Ab-1._~z");
    expect(config.dev_gateway.allowed_hosts).toEqual(["devbox.local", "192.168.1.5", "[fe80::1]"]);
  });

  it("leaves both unset by default: a generated token, loopback hosts only", () => {
    const config = resolveConfig({}, { env: {} });
    expect(config.dev_gateway.token).toBeUndefined();
    expect(config.dev_gateway.allowed_hosts).toBeUndefined();
  });

  it.each(["", "has space", "a&b", "a#b", "päss"])("refuses token %j without echoing it", (token) => {
    const problems = problemsOf({ dev_gateway: { token } });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe("dev_gateway.token");
    expect(problems[0]?.message).toContain("value hidden");
    expect(problems[0]?.message).toContain("expected a non-empty token of letters, digits");
    if (token !== "") expect(problems[0]?.message).not.toContain(token);
  });

  it.each(["devbox.local:8765", "http://devbox", "*.example.com", "[nope]", "", "a b", "-x.example"])("refuses allowed_hosts entry %j", (host) => {
    const problems = problemsOf({ dev_gateway: { allowed_hosts: [host] } });
    expect(problems[0]?.path).toBe("dev_gateway.allowed_hosts[0]");
    expect(problems[0]?.message).toContain("expected host names without a port");
  });

  it("refuses allowed_hosts that is not an array", () => {
    expect(problemsOf({ dev_gateway: { allowed_hosts: "devbox.local" } })[0]?.path).toBe("dev_gateway.allowed_hosts");
  });
});
