import type { FrameMix } from "./gatewayFrames.js";

/** Parent → gateway process. */
export type GatewayCommand =
  | { readonly kind: "feed"; readonly from: number; readonly count: number; readonly mix: FrameMix }
  | { readonly kind: "broadcast"; readonly frame: object }
  | { readonly kind: "stop" };

/** Gateway process → parent. Times are the monotonic clock, which every process on the machine shares, as decimal strings. */
export type GatewayReport =
  | { readonly kind: "ready"; readonly url: string }
  | { readonly kind: "connections"; readonly count: number }
  /** Just before the first frame of a feed left, and after the last. */
  | { readonly kind: "fed"; readonly firstSentNs: string; readonly lastSentNs: string }
  /** A reply frame arrived (and was acked at once). */
  | { readonly kind: "reply"; readonly channel: string; readonly text: string; readonly atNs: string };
