import { describe, expect, it } from "vitest";
import { SerialTicks } from "../../src/scale/serialTicks.js";

describe("SerialTicks", () => {
  it("never runs two ticks at once: triggers during one run exactly one more after it", async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const gates: (() => void)[] = [];
    const ticks = new SerialTicks(
      () => {
        runs += 1;
        running += 1;
        most = Math.max(most, running);
        return new Promise<void>((resolve) => gates.push(() => ((running -= 1), resolve())));
      },
      () => true,
    );
    ticks.trigger();
    ticks.trigger();
    ticks.trigger();
    expect(runs).toBe(1);
    gates.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(2);
    gates.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(2);
    expect(most).toBe(1);
  });

  it("drops triggers while inactive", () => {
    let runs = 0;
    const ticks = new SerialTicks(async () => void (runs += 1), () => false);
    ticks.trigger();
    expect(runs).toBe(0);
  });
});
