import { describe, expect, it } from "vitest";
import type { MessageLimitUnit, PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import { charsPerMessage } from "../../src/platforms/charsPerMessage.js";

/** `charsPerMessage` reads only the limit and its unit. */
const limit = (messageLimit: number, messageLimitUnit: MessageLimitUnit) => ({ messageLimit, messageLimitUnit }) as PlatformCapabilities;

describe("charsPerMessage", () => {
  it("without a handshake: OpenAB's legacy 4096", () => {
    expect(charsPerMessage(undefined)).toBe(4096);
  });

  it("characters as the hello says; bytes (UTF-8 or UTF-16) as a quarter, at least one", () => {
    expect(charsPerMessage(limit(2000, "characters"))).toBe(2000);
    expect(charsPerMessage(limit(4001, "bytes"))).toBe(1000);
    expect(charsPerMessage(limit(8000, "utf16_bytes"))).toBe(2000);
    expect(charsPerMessage(limit(3, "bytes"))).toBe(1);
  });

  it("unlimited: an integer no text reaches", () => {
    expect(charsPerMessage(limit(Infinity, "unlimited"))).toBe(Number.MAX_SAFE_INTEGER);
  });
});
