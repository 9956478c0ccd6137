import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";

/**
 * Characters per message on a platform: OpenAB's legacy 4096 without a handshake (`capabilities`
 * undefined), else the hello's `message_limit`. A limit in bytes becomes max / 4 characters (a
 * code point is at most 4 bytes in UTF-8 and in UTF-16), so a split never exceeds it. `unlimited`
 * is a count no text reaches (a split needs an integer): never split.
 */
export function charsPerMessage(capabilities: PlatformCapabilities | undefined): number {
  if (capabilities === undefined) return 4096;
  if (capabilities.messageLimitUnit === "unlimited") return Number.MAX_SAFE_INTEGER;
  if (capabilities.messageLimitUnit === "bytes" || capabilities.messageLimitUnit === "utf16_bytes") return Math.max(1, Math.floor(capabilities.messageLimit / 4));
  return capabilities.messageLimit;
}
