import { settingsFromConfig } from "../../operators/index.js";
import { NaiveBroker } from "../baseline/naiveBroker.js";
import { ingressGatewayConfig } from "./gatewayFrames.js";
import { SettleCounter } from "./settleCounter.js";
import { TRIAGE_CONFIG, type IngressSubject } from "./turnstreamIngress.js";

/** The naive baseline with the same gateway keys, triage settings and instant agent as turnstream's run. */
export async function startNaiveIngress(gatewayUrl: string, gatewayToken: string): Promise<IngressSubject> {
  const settled = new SettleCounter();
  const gateway = ingressGatewayConfig(gatewayUrl, gatewayToken);
  const broker = new NaiveBroker({
    // As upstream's connector sends it.
    gatewayUrl: `${gatewayUrl}?token=${gatewayToken}`,
    gateway: { ...gateway, allowed_channels: [], allow_bot_messages: false, trusted_bot_ids: [] },
    triage: settingsFromConfig(TRIAGE_CONFIG),
    agent: async () => undefined,
  });
  broker.on("settled", () => settled.tick());
  await broker.start();
  return { settled, stop: () => broker.stop() };
}
