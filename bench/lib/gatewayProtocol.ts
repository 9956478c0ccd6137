import type { FrameMix } from "./gatewayFrames.js";
import type { Distribution } from "./stats.js";

/** The channel of the bare ack round trip's frames (bench/lib/ackRoundTrip.ts): acked, and not reported as replies. */
export const ACK_PROBE_CHANNEL = "ack-probe";

/**
 * A steady feed: events `from … from+count-1` at `ratePerSecond`, each answered reply matched to
 * its event by the `message <i>:` its text echoes. While one runs the gateway keeps replies to
 * itself (no report per reply), so the parent's process — the broker under test — only sees
 * progress once a second and the result.
 */
export interface SteadyFeedCommand {
  readonly kind: "steady";
  readonly from: number;
  readonly count: number;
  readonly ratePerSecond: number;
  readonly mix: FrameMix;
  /** After the last event left, how long to wait for the missing answers. */
  readonly drainMs: number;
}

export interface SteadyProgress {
  readonly sent: number;
  readonly answered: number;
}

export interface SteadyResult extends SteadyProgress {
  /** The same event answered more than once (each extra reply counts once). */
  readonly duplicates: number;
  /** Replies that name no event of this feed (a notice, an error text). */
  readonly unmatched: number;
  /** Events per second actually sent, first → last frame. */
  readonly sentPerSecond: number;
  /** Event frame written → its answer's reply frame read, ms. */
  readonly latencyMs: Distribution;
}

/** Parent → gateway process. */
export type GatewayCommand =
  | { readonly kind: "feed"; readonly from: number; readonly count: number; readonly mix: FrameMix }
  | { readonly kind: "broadcast"; readonly frame: object }
  | SteadyFeedCommand
  | { readonly kind: "stop" };

/** Gateway process → parent. Times are the monotonic clock, which every process on the machine shares, as decimal strings. */
export type GatewayReport =
  | { readonly kind: "ready"; readonly url: string; readonly token: string }
  | { readonly kind: "connections"; readonly count: number }
  /** Just before the first frame of a feed left, and after the last. */
  | { readonly kind: "fed"; readonly firstSentNs: string; readonly lastSentNs: string }
  /** A reply frame arrived (and was acked at once). */
  | { readonly kind: "reply"; readonly channel: string; readonly text: string; readonly atNs: string }
  | ({ readonly kind: "steadyProgress" } & SteadyProgress)
  | ({ readonly kind: "steadyDone" } & SteadyResult);
