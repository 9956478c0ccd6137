import { firstValueFrom } from "rxjs";
import { expect, onTestFinished } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import type { Bus, RequestOptions } from "../../src/bus/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { resolveConfig } from "../../src/config/index.js";
import type { DevGatewayOptions } from "../../src/devgateway/devGateway.js";
import type { GatewayConnectorOptions } from "../../src/gateway/connector.js";
import { runEdge } from "../../src/edge/edge.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { createSender } from "../../src/pipeline/send.js";
import { subjects, type SendReply } from "../../src/wire/index.js";
import { devGatewayConnector } from "../helpers/devGatewayConnector.js";
import { until } from "../helpers/stack.js";

export const names = subjects();
export const sendSubject = names.send("telegram");

export const message: OutboundMessage = {
  reply_to: "evt-1",
  platform: "telegram",
  channel: { id: "chat-1" },
  content: { type: "text", text: "on it" },
};

export interface EdgeFixtureOptions {
  readonly wantAck?: boolean;
  readonly connector?: Partial<GatewayConnectorOptions>;
  /** The bus the edge answers on (default a fresh `MemoryBus`); closed after the test. */
  readonly bus?: Bus;
}

/**
 * A real dev gateway, a real connector connected to it (negotiated, when the gateway has a hello),
 * and an edge answering sends on a memory bus; all stopped when the test finishes.
 */
export async function startEdge(gatewayOptions: DevGatewayOptions = {}, { wantAck = true, connector: overrides = {}, bus = new MemoryBus() }: EdgeFixtureOptions = {}) {
  const { gateway, connector, frames, logger, records } = await devGatewayConnector(gatewayOptions, { requiredAckTimeoutMs: 300, ...overrides });
  const config = resolveConfig({ gateway: { url: gateway.url } }, { env: {} });
  const edge = runEdge({
    port: connector,
    inbound: config.inbound,
    wantAck,
    queue: (_event, _key, done) => done(),
    bus,
    subjects: names,
    logger,
    scheduler: bus.scheduler,
    notices: createSender({ bus, subjects: names, pipeline: new Pipeline(), timeoutMs: 5_000 }),
  });
  onTestFinished(async () => {
    edge.responder.unsubscribe();
    await edge.stopIntake();
    await bus.close();
    await connector.close();
    await gateway.close();
  });
  connector.start();
  expect(await until(() => connector.isConnected && gateway.brokerCount > 0, 10_000)).toBe(true);
  if (gatewayOptions.hello !== undefined) expect(await until(() => records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
  const request = (headers?: RequestOptions["headers"], sent: OutboundMessage = message) =>
    firstValueFrom(bus.request<OutboundMessage, SendReply>(sendSubject, sent, { timeoutMs: 5_000, ...(headers === undefined ? {} : { headers }) }));
  return { gateway, connector, frames, request, bus, edge, records };
}
