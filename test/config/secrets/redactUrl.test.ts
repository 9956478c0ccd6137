import { describe, expect, it } from "vitest";
import { redactUrl, redactUrlsIn } from "../../../src/config/index.js";
import { expectLinear } from "../../helpers/linearTime.js";

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
    // Ten texts of a tenth against one whole, so the strings "?a=b&" makes (a replacement every 5
    // characters, hence fewer of it) cost the same collections on both sides.
    const redactBoth = (text: string) => [redactUrlsIn(text), redactUrl(text)];
    for (const [piece, count] of [["?a", 500_000], ["://a", 250_000], ["a.", 500_000], ["?a=b&", 20_000], ["://@", 100_000]] as const) {
      expectLinear((times: number) => piece.repeat(times), redactBoth, count, piece);
    }
  });
});
