import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearerCheck, signatureCheck, signatureDigest, signatureHeaderCheck } from "../../src/webhooks/signatureCheck.js";

const SECRET = "alerts-secret-7f3a9c1e5b2d";
const body = Buffer.from('{"alert":"disk full"}');
const hex = createHmac("sha256", SECRET).update(body).digest("hex");

describe("signatureCheck (HMAC-SHA256 over the raw body)", () => {
  it("accepts the body's digest, bare or as GitHub sends it (sha256=, any case of hex)", () => {
    expect(signatureCheck(body, SECRET, hex)).toBe("ok");
    expect(signatureCheck(body, SECRET, `sha256=${hex}`)).toBe("ok");
    expect(signatureCheck(body, SECRET, `SHA256=${hex.toUpperCase()}`)).toBe("ok");
    expect(signatureCheck(body, SECRET, ` sha256=${hex} `)).toBe("ok");
  });

  it("refuses another body, another secret, and says which of missing, malformed or wrong", () => {
    expect(signatureCheck(Buffer.from('{"alert":"disk full" }'), SECRET, hex)).toBe("wrong");
    expect(signatureCheck(body, "another-secret-0123456789", hex)).toBe("wrong");
    expect(signatureCheck(body, SECRET, undefined)).toBe("missing");
    expect(signatureCheck(body, SECRET, "")).toBe("missing");
    for (const header of ["sha1=" + hex.slice(0, 40), `sha256=${hex.slice(1)}`, `sha256=${hex}00`, `sha256=${"z".repeat(64)}`, [hex, hex]]) {
      expect(signatureCheck(body, SECRET, header)).toBe("malformed");
    }
  });

  it("checks the raw bytes: the same JSON written otherwise, or re-encoded, does not pass", () => {
    const latin = Buffer.from('{"name":"Jos\u00e9"}', "latin1");
    const latinHex = createHmac("sha256", SECRET).update(latin).digest("hex");
    expect(signatureCheck(latin, SECRET, latinHex)).toBe("ok");
    expect(signatureCheck(Buffer.from(latin.toString("latin1"), "utf8"), SECRET, latinHex)).toBe("wrong");
  });

  it("reads a header's form before the body exists", () => {
    expect(signatureHeaderCheck(`sha256=${hex}`)).toBe("ok");
    expect(signatureHeaderCheck(undefined)).toBe("missing");
    expect(signatureHeaderCheck("sha256=nope")).toBe("malformed");
    expect(signatureDigest(`sha256=${hex}`)).toEqual(Buffer.from(hex, "hex"));
  });
});

describe("bearerCheck", () => {
  const TOKEN = "deploy-token-0123456789abcdef";

  it("accepts Bearer <secret> (scheme in any case), refuses anything else with its reason", () => {
    expect(bearerCheck(`Bearer ${TOKEN}`, TOKEN)).toBe("ok");
    expect(bearerCheck(`bearer   ${TOKEN} `, TOKEN)).toBe("ok");
    expect(bearerCheck(`Bearer ${TOKEN}x`, TOKEN)).toBe("wrong");
    expect(bearerCheck(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN)).toBe("wrong");
    expect(bearerCheck("Bearer x", TOKEN)).toBe("wrong");
    expect(bearerCheck(undefined, TOKEN)).toBe("missing");
    expect(bearerCheck("", TOKEN)).toBe("missing");
    expect(bearerCheck(`Basic ${TOKEN}`, TOKEN)).toBe("malformed");
    expect(bearerCheck(`Bearer ${TOKEN} extra`, TOKEN)).toBe("malformed");
  });
});
