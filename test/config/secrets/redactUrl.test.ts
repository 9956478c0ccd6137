import { describe, expect, it } from "vitest";
import { redactUrl, redactUrlsIn } from "../../../src/config/index.js";

describe("redactUrl", () => {
  it.each([
    ["nats://edge:pw-77c1@nats.internal:4222", "nats://***@nats.internal:4222"],
    ["tls://tok-9f3a@nats.example.com", "tls://***@nats.example.com"],
    ["ws://gw:8080/ws?token=s3cr3t", "ws://gw:8080/ws?token=***"],
    ["wss://gw/ws?x=1&api_key=k&Access_Token=t&page=2", "wss://gw/ws?x=1&api_key=***&Access_Token=***&page=2"],
    ["ws://gw/ws#password=p", "ws://gw/ws#password=***"],
    // Malformed input, as a refused value is quoted: masked rather than parsed.
    ["u:secret@host:4222", "***@host:4222"],
    ["http://u:pa/ss@h/ws?token=t", "http://***@h/ws?token=***"],
    ["nats://u:p@ss@h:1", "nats://***@h:1"],
  ])("%s → %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it("leaves a URL without credentials as written", () => {
    for (const url of ["ws://127.0.0.1:8765/ws", "nats://h:4222", "wss://gw/ws?platform=telegram&token=", "not a url"]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});

describe("redactUrlsIn", () => {
  it("masks every URL's user info and credential parameters inside running text", () => {
    expect(redactUrlsIn("--base-url=https://u:p@api.example.com/v1 --x")).toBe("--base-url=https://***@api.example.com/v1 --x");
    expect(redactUrlsIn("a ws://gw/ws?token=abc b nats://t@h c")).toBe("a ws://gw/ws?token=*** b nats://***@h c");
  });

  it("keeps a JSON log line JSON: a URL ends at a quote", () => {
    const line = JSON.stringify({ url: "ws://u:p@h/ws?token=zz&b=1", other: "c@d", note: "a=b" });
    const masked = redactUrlsIn(line);
    expect(JSON.parse(masked)).toEqual({ url: "ws://***@h/ws?token=***&b=1", other: "c@d", note: "a=b" });
  });

  it("takes time linear in the text on inputs built to backtrack", () => {
    // Least of five runs: a garbage collection in one run is not the algorithm.
    const timeOf = (text: string) =>
      Math.min(
        ...[1, 2, 3, 4, 5].map(() => {
          const start = performance.now();
          redactUrlsIn(text);
          redactUrl(text);
          return performance.now() - start;
        }),
      );
    for (const piece of ["?a", "://a", "a.", "?a=b&", "://@"]) {
      const small = Math.max(timeOf(piece.repeat(10_000)), 0.05);
      const big = timeOf(piece.repeat(100_000));
      // 10× the input: a linear scan takes ~10×, a quadratic one ~100×. Generous for shared cores:
      // "?a=b&" makes a replacement every 5 characters, and the collections its 100,000 strings
      // cost took it to 46× once in a full run with other suites busy on both cores.
      expect(big, piece).toBeLessThan(small * 60 + 20);
    }
  });
});
