import { describe, expect, it } from "vitest";
import { ledgerKey } from "../../src/turn/turnLedger.js";

describe("ledgerKey", () => {
  it("is platform:event_id, plain ids as they are", () => {
    expect(ledgerKey({ platform: "telegram", event_id: "12345" })).toBe("telegram:12345");
    expect(ledgerKey({ platform: "slack", event_id: "1700000000.123" })).toBe("slack:1700000000.123");
  });

  it("keeps a platform with ':' apart from another platform's event of the same spelling", () => {
    const one = ledgerKey({ platform: "a:b", event_id: "c" });
    const two = ledgerKey({ platform: "a", event_id: "b:c" });
    expect([one, two]).toEqual(["a%3Ab:c", "a:b%3Ac"]);
  });
});
