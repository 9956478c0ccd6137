import { elapsedMs, note } from "./benchEnv.js";
import type { RemoteGateway } from "./remoteGateway.js";
import type { FrameMix } from "./gatewayFrames.js";
import type { IngressSubject } from "./turnstreamIngress.js";

export const SESSIONS = 256;
/** One event in ten is proactive (a reminder), so triage is on the path. */
export const PROACTIVE_EVERY = 10;

/** Feeds `count` fresh events and resolves with events settled per second, first frame sent → last event settled. */
export async function ingressRun(gateway: RemoteGateway, subject: IngressSubject, count: number, runTag: string, timeoutMs: number): Promise<number> {
  const mix: FrameMix = { sessions: SESSIONS, proactiveEvery: PROACTIVE_EVERY, runTag };
  const target = subject.settled.count + count;
  const settled = subject.settled.reach(target, timeoutMs);
  const { firstSentNs } = await gateway.feed(0, count, mix);
  const lastSettledNs = await settled;
  const rate = count / (elapsedMs(firstSentNs, lastSettledNs) / 1000);
  note(`${runTag}: ${Math.round(rate)} events/s`);
  return rate;
}
