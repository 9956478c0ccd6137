import { describe, expect, it } from "vitest";
import { brokerPhase } from "../../src/broker/brokerReadiness.js";

describe("brokerPhase", () => {
  it("is starting until the broker runs, then running", () => {
    expect(brokerPhase("created", false)).toBe("starting");
    expect(brokerPhase("running", false)).toBe("running");
  });

  it("is draining as soon as a stop has begun, before the broker is stopping", () => {
    expect(brokerPhase("running", true)).toBe("draining");
    expect(brokerPhase("stopping", true)).toBe("draining");
    expect(brokerPhase("created", true)).toBe("draining");
  });

  it("is stopped once stopped", () => {
    expect(brokerPhase("stopped", true)).toBe("stopped");
  });
});
