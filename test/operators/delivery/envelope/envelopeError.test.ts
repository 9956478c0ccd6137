import { describe, expect, it } from "vitest";
import { envelopeError } from "../../../../operators/delivery/envelope/envelopeError.js";

// Issue 17, hole 5: the one display string that quotes the agent (the schema name) is logged; it is
// bounded to 100 chars and cleaned, and a real schema name passes as upstream prints it.
describe("EnvelopeError display of an agent-chosen schema name", () => {
  it("keeps an ordinary name byte for byte", () => {
    expect(envelopeError({ kind: "schema_mismatch", found: "openab.turn.v9" }).display).toBe("unexpected schema `openab.turn.v9`");
  });

  it("bounds and cleans a hostile one", () => {
    const found = `\u001b[31m${"x".repeat(200)}`;
    expect(envelopeError({ kind: "schema_mismatch", found }).display).toBe(`unexpected schema \`${"x".repeat(87)}…(+113 chars)\``);
    expect(envelopeError({ kind: "schema_mismatch", found: "a\u0000b\nc\u202ed" }).display).toBe("unexpected schema `ab cd`");
    expect(envelopeError({ kind: "schema_mismatch", found: "s".repeat(1_000_000) }).display.length).toBeLessThanOrEqual(130);
  });
});
