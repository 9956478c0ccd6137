import { describe, expect, it } from "vitest";
import { versionAtLeast } from "../../src/bus/nats/openJetStream.js";

describe("versionAtLeast", () => {
  it("compares dotted versions numerically; a pre-release counts as its release", () => {
    expect(versionAtLeast("2.9.10", "2.9.4")).toBe(true);
    expect(versionAtLeast("2.9.4", "2.9.4")).toBe(true);
    expect(versionAtLeast("2.9.3", "2.9.4")).toBe(false);
    expect(versionAtLeast("2.10.0-beta.1", "2.9.4")).toBe(true);
    expect(versionAtLeast("1.99.99", "2.9.4")).toBe(false);
    expect(versionAtLeast("unknown", "2.9.4")).toBe(false);
  });
});
