import { describe, expect, it } from "vitest";
import { runTurnstream } from "../helpers/cli.js";

describe("turnstream bubble-test (spawned)", () => {
  it("runs the named scenarios offline and prints PASS with what arrived and the gaps", async () => {
    const result = await runTurnstream(["bubble-test", "envelope", "prose"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^PASS {2}envelope {3}\[structured\] 3 message\(s\): "on it" \| "your flight moved to 8pm" \| "gate B12" {2}gaps 0\.\d\ds 0\.\d\ds$/m);
    expect(result.stdout).toMatch(/^PASS {2}prose /m);
    expect(result.stdout).toContain("2 passed, 0 failed\n");
  });

  it("refuses an unknown scenario with exit 2 and the list of scenarios", async () => {
    const result = await runTurnstream(["bubble-test", "nope"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown scenario "nope"; scenarios are envelope, multiline');
  });
});
