import { describe, expect, it } from "vitest";
import { renderTriageAdmit } from "../../bench/report/renderTriageAdmit.js";

describe("the triage-admit table", () => {
  it("renders one column per window size and the growth from the first to the last", () => {
    const lines = renderTriageAdmit({
      benchmark: "triage-admit",
      windowSecs: 3600,
      batches: 7,
      batchMs: 50,
      rows: [
        { idsPerWindow: 10, remembered: 11, microsPerAdmit: 6.07 },
        { idsPerWindow: 10_000, remembered: 1_000, microsPerAdmit: 5.21 },
      ],
      growth: 0.86,
    });
    expect(lines).toContain("| Distinct ids per window | 10 | 10,000 | 10,000 ÷ 10 |");
    expect(lines).toContain("| Remembered | 11 | 1,000 | |");
    expect(lines).toContain("| µs per admit | 6.07 | 5.21 | 0.86× |");
  });

  it("renders nothing when the benchmark did not run", () => {
    expect(renderTriageAdmit(undefined)).toEqual([]);
  });
});
