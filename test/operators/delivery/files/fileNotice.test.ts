import { describe, expect, it } from "vitest";
import { fileNotice } from "../../../../operators/delivery/files/fileNotice.js";

describe("fileNotice", () => {
  it("names the file and its size in one line (issue 42's example)", () => {
    expect(fileNotice("report.pdf", Math.round(2.1 * 1024 * 1024))).toBe("📎 report.pdf (2.1 MB) could not be sent here");
  });

  it("sizes a small file in bytes and a middling one in KB, as inbound attachments are sized", () => {
    expect(fileNotice("a.txt", 0)).toBe("📎 a.txt (0 B) could not be sent here");
    expect(fileNotice("a.txt", 1023)).toBe("📎 a.txt (1023 B) could not be sent here");
    expect(fileNotice("chart.png", 1536)).toBe("📎 chart.png (1.5 KB) could not be sent here");
    expect(fileNotice("big.zip", 60_000_000)).toBe("📎 big.zip (57.2 MB) could not be sent here");
  });

  it("is one line, never the bytes", () => {
    expect(fileNotice("x.bin", 10)).not.toContain("\n");
  });
});
