import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliveryId } from "../../src/webhooks/deliveryId.js";

const raw = Buffer.from('{"id":"abc"}');
const sha = (text: string | Buffer) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

describe("deliveryId", () => {
  it("reads the configured header (any case), trimmed", () => {
    expect(deliveryId({ kind: "header", name: "X-GitHub-Delivery" }, { "x-github-delivery": " 72d3162e-cc78-11e3-81ab-4c9367dc0958 " }, {}, raw)).toBe("72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(deliveryId({ kind: "header", name: "X-GitHub-Delivery" }, {}, {}, raw)).toBeUndefined();
    expect(deliveryId({ kind: "header", name: "X-GitHub-Delivery" }, { "x-github-delivery": "  " }, {}, raw)).toBeUndefined();
  });

  it("reads a string or a number at the configured pointer, and nothing else", () => {
    const source = { kind: "pointer", pointer: ["event", "id"] } as const;
    expect(deliveryId(source, {}, { event: { id: "evt_1" } }, raw)).toBe("evt_1");
    expect(deliveryId(source, {}, { event: { id: 42 } }, raw)).toBe("42");
    for (const id of [null, true, { a: 1 }, [1], ""]) expect(deliveryId(source, {}, { event: { id } }, raw)).toBeUndefined();
    expect(deliveryId(source, {}, { event: {} }, raw)).toBeUndefined();
  });

  it("without a source, hashes the raw body", () => {
    expect(deliveryId({ kind: "body" }, {}, { id: "abc" }, raw)).toBe(sha(raw));
  });

  it("replaces an id that is long or not visible ASCII with its hash: equal ids still match, nothing of the sender's choosing is kept", () => {
    const source = { kind: "pointer", pointer: ["id"] } as const;
    const long = "x".repeat(129);
    expect(deliveryId(source, {}, { id: long }, raw)).toBe(sha(long));
    expect(deliveryId(source, {}, { id: "x".repeat(128) }, raw)).toBe("x".repeat(128));
    for (const id of ["a b", "évt", "line\nbreak", "\u202eevil"]) expect(deliveryId(source, {}, { id }, raw)).toBe(sha(id));
  });
});
