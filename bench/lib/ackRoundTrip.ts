import WebSocket from "ws";
import { ACK_PROBE_CHANNEL } from "./gatewayProtocol.js";
import { elapsedMs, nowNs, sleep } from "./benchEnv.js";

const ACK_TIMEOUT_MS = 10_000;

/** A bare ack round trip's socket to a gateway process; `measure` between a benchmark's counted turns. */
export interface AckRoundTrip {
  /** `count` round trips, one at a time and `gapMs` apart; resolves with each one's ms. */
  measure(count: number, gapMs: number): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * A bare ack round trip: a reply frame written to the gateway process over a loopback WebSocket
 * of its own, and the gateway's ack read back, timed in this process — the broker's — with no
 * broker work on the way (the gateway parses and acks it as any send, and keeps it to itself:
 * `ACK_PROBE_CHANNEL`). Two process hops, as a bubble's agent → broker → gateway, on the same
 * machine at the same moment: the bubble-overhead targets are ratios to it (docs/benchmarks.md,
 * "Targets as ratios").
 */
export async function connectAckRoundTrip(gatewayUrl: string, token: string): Promise<AckRoundTrip> {
  const url = new URL(gatewayUrl);
  url.searchParams.set("token", token);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let waiting: { readonly requestId: string; readonly resolve: (atNs: bigint) => void } | undefined;
  // The gateway broadcasts its events to this socket too: only the ack awaited counts.
  socket.on("message", (data) => {
    const atNs = nowNs();
    if (waiting === undefined) return;
    const frame = JSON.parse(data.toString()) as { schema?: unknown; request_id?: unknown };
    if (frame.schema === "openab.gateway.response.v1" && frame.request_id === waiting.requestId) waiting.resolve(atNs);
  });
  let next = 0;
  const roundTrip = async (): Promise<number> => {
    const requestId = `ack-probe-${next++}`;
    const frame = JSON.stringify({
      schema: "openab.gateway.reply.v1",
      reply_to: "ack-probe",
      platform: "telegram",
      channel: { id: ACK_PROBE_CHANNEL },
      content: { type: "text", text: "ack probe" },
      request_id: requestId,
    });
    let timer: NodeJS.Timeout | undefined;
    const acked = new Promise<bigint>((resolve, reject) => {
      waiting = { requestId, resolve };
      timer = setTimeout(() => reject(new Error(`no ack for ${requestId} after ${ACK_TIMEOUT_MS} ms`)), ACK_TIMEOUT_MS);
    });
    const sentNs = nowNs();
    socket.send(frame);
    try {
      return elapsedMs(sentNs, await acked);
    } finally {
      clearTimeout(timer);
      waiting = undefined;
    }
  };
  return {
    measure: async (count, gapMs) => {
      const trips: number[] = [];
      for (let i = 0; i < count; i++) {
        trips.push(await roundTrip());
        await sleep(gapMs);
      }
      return trips;
    },
    close: async () => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.close();
      await closed;
    },
  };
}
