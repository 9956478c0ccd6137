import { describe, expect, it } from "vitest";
import { admission, loopbackHosts, normalizedHostName, tokensEqual, type AdmissionRequest } from "../../src/devgateway/admission.js";

const policy = { token: "t0ken", allowedHosts: new Set([...loopbackHosts, "devbox.local"].map(normalizedHostName)) };
const request = (overrides: Partial<AdmissionRequest>): AdmissionRequest => ({
  path: "/ws",
  upgrade: true,
  host: "127.0.0.1:8765",
  origin: undefined,
  token: "t0ken",
  ...overrides,
});
const refusal = (overrides: Partial<AdmissionRequest>) => {
  const verdict = admission(request(overrides), policy);
  return verdict.admitted ? "admitted" : `${verdict.status} ${verdict.reason}`;
};

describe("admission (the dev gateway's door)", () => {
  it("admits a broker (no Origin) and the page's own socket", () => {
    expect(refusal({})).toBe("admitted");
    expect(refusal({ path: "/ui", origin: "http://127.0.0.1:8765" })).toBe("admitted");
    expect(refusal({ path: "/ws", origin: "http://127.0.0.1:8765" })).toBe("admitted");
    expect(refusal({ path: "/", upgrade: false })).toBe("admitted");
  });

  it.each(["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765", "127.0.0.1", "devbox.local:9000", "localhost:9000"])("accepts Host %j", (host) => {
    expect(refusal({ host })).toBe("admitted");
  });

  it.each([undefined, "", "evil.example:8765", "127.0.0.1.nip.io:8765", "localhost.:8765", "0.0.0.0:8765", "[::2]:8765", "a@127.0.0.1", "127.0.0.1/x", "127.0.0.1:8765 x"])(
    "refuses Host %j with 403 before looking at the token",
    (host) => {
      expect(refusal({ host })).toBe("403 host_not_allowed");
      expect(refusal({ host, token: undefined })).toBe("403 host_not_allowed");
      expect(refusal({ host, path: "/health", upgrade: false })).toBe("403 host_not_allowed");
    },
  );

  it.each(["/", "/ui", "/ws", "/anything"])("refuses %s without the token (401) or with a wrong one", (path) => {
    for (const upgrade of [false, true]) {
      expect(refusal({ path, upgrade, token: undefined, origin: "http://127.0.0.1:8765" })).toBe("401 token_missing");
      expect(refusal({ path, upgrade, token: "t0ke", origin: "http://127.0.0.1:8765" })).toBe("401 token_wrong");
      expect(refusal({ path, upgrade, token: "", origin: "http://127.0.0.1:8765" })).toBe("401 token_wrong");
    }
  });

  it("needs the token on /health too", () => {
    expect(refusal({ path: "/health", upgrade: false, token: undefined })).toBe("401 token_missing");
    expect(refusal({ path: "/health", upgrade: false, token: "wrong" })).toBe("401 token_wrong");
    expect(refusal({ path: "/health", upgrade: true, token: undefined })).toBe("401 token_missing");
  });

  it.each(["http://evil.example", "http://127.0.0.1:8766", "http://localhost:8765", "https://127.0.0.1:8765", "null", "http://127.0.0.1:8765/", "file://", "not a url"])(
    "refuses a WebSocket from origin %j with 403 on /ui and /ws",
    (origin) => {
      expect(refusal({ path: "/ui", origin })).toBe("403 origin_not_allowed");
      expect(refusal({ path: "/ws", origin })).toBe("403 origin_not_allowed");
    },
  );

  it("refuses /ui without an Origin (only the page's own origin is allowed) but not /ws", () => {
    expect(refusal({ path: "/ui", origin: undefined })).toBe("403 origin_not_allowed");
    expect(refusal({ path: "/ws", origin: undefined })).toBe("admitted");
  });

  it("matches the origin to the Host asked for, default port included", () => {
    expect(refusal({ path: "/ui", host: "localhost:8765", origin: "http://localhost:8765" })).toBe("admitted");
    expect(refusal({ path: "/ui", host: "localhost:80", origin: "http://localhost" })).toBe("admitted");
    expect(refusal({ path: "/ui", host: "[::1]:8765", origin: "http://[::1]:8765" })).toBe("admitted");
  });

  it("compares tokens by value whatever their lengths", () => {
    expect(tokensEqual("abc", "abc")).toBe(true);
    expect(tokensEqual("abc", "abd")).toBe(false);
    expect(tokensEqual("abc", "abcd")).toBe(false);
    expect(tokensEqual("", "abc")).toBe(false);
  });

  it("normalises configured names as Host headers are", () => {
    expect(normalizedHostName("DevBox.Local")).toBe("devbox.local");
    expect(normalizedHostName("::1")).toBe("[::1]");
    expect(normalizedHostName("[::1]")).toBe("[::1]");
  });
});
