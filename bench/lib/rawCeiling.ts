import WebSocket from "ws";
import { parseGatewayFrame } from "../../operators/index.js";
import { SettleCounter } from "./settleCounter.js";
import type { IngressSubject } from "./turnstreamIngress.js";

/** turnstream's default `[gateway] max_frame_bytes` (the baseline's too). */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * The raw ceiling of the ingress benchmark: what this process can do with the same frames and no
 * broker at all — a `ws` client on the same loopback gateway that only decodes each text frame
 * and validates it with the same zod schema (`parseGatewayFrame`), counting every event frame as
 * settled. No skip rules, trust, dedupe, lanes, triage or agent: every broker's rate is a share
 * of this one.
 */
export async function startRawCeiling(gatewayUrl: string, gatewayToken: string): Promise<IngressSubject> {
  const settled = new SettleCounter();
  const socket = new WebSocket(`${gatewayUrl}?token=${gatewayToken}`);
  socket.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
    if (!isBinary && parseGatewayFrame(data as Buffer, MAX_FRAME_BYTES).kind === "event") settled.tick();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  socket.send(JSON.stringify({ schema: "openab.gateway.client_hello.v1", protocol_version: 1, client_name: "raw-ceiling/0", requested_platforms: [] }));
  return {
    settled,
    stop: async () => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.close(1000);
      await closed;
    },
  };
}
