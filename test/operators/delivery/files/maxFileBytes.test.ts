import { describe, expect, it } from "vitest";
import { maxFileBytes, TELEGRAM_PHOTO_BYTES } from "../../../../operators/delivery/files/maxFileBytes.js";

const MIB = 1024 * 1024;

describe("maxFileBytes", () => {
  it("is each native platform's own limit when nothing is configured", () => {
    expect(maxFileBytes("telegram", undefined)).toBe(50_000_000);
    expect(maxFileBytes("discord", undefined)).toBe(10 * MIB);
    expect(maxFileBytes("slack", undefined)).toBe(1024 * MIB);
  });

  it("is 8 MiB for any other platform: there the file travels base64 in one gateway frame", () => {
    expect(maxFileBytes("line", undefined)).toBe(8 * MIB);
    expect(maxFileBytes("feishu", undefined)).toBe(8 * MIB);
    expect(maxFileBytes("", undefined)).toBe(8 * MIB);
    expect(maxFileBytes("Telegram", undefined)).toBe(8 * MIB);
  });

  it("takes [delivery] max_file_bytes when it is lower, never when it is higher", () => {
    expect(maxFileBytes("telegram", 1_000)).toBe(1_000);
    expect(maxFileBytes("discord", 10 * MIB)).toBe(10 * MIB);
    expect(maxFileBytes("discord", 100 * MIB)).toBe(10 * MIB);
    expect(maxFileBytes("line", 1)).toBe(1);
    expect(maxFileBytes("line", 50 * MIB)).toBe(8 * MIB);
  });

  it("is a number for a platform named like an Object.prototype key (the name comes from the gateway)", () => {
    for (const platform of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      expect(maxFileBytes(platform, undefined), platform).toBe(8 * MIB);
      expect(maxFileBytes(platform, 100), platform).toBe(100);
    }
  });

  it("sends a picture as a Telegram photo only up to 10 MB", () => {
    expect(TELEGRAM_PHOTO_BYTES).toBe(10_000_000);
  });
});
