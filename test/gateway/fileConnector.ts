import { expect, onTestFinished } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { devGatewayHello, type DevGatewayOptions, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import type { GatewayConnector, GatewayConnectorOptions } from "../../src/gateway/connector.js";
import { devGatewayConnector } from "../helpers/devGatewayConnector.js";
import type { LogRecord } from "../helpers/logCapture.js";
import { until, withOutboundFiles } from "../helpers/stack.js";

/** What a connector answering a file logs when it sends the notice line instead. */
export const NOTICE_LOG = "file not sent over the gateway; its notice sent instead";

/** A plain send carrying a file (`ref` "file-1"), `caption` its text. */
export function fileSend(size: number, caption = "here it is", kind: "image" | "document" = "document"): OutboundMessage {
  return {
    reply_to: "evt-1",
    platform: "telegram",
    channel: { id: "chat-1" },
    content: { type: "text", text: caption },
    attachment: { filename: "report.pdf", mime_type: "application/pdf", size, kind, ref: "file-1" },
  };
}

/** A real dev gateway and a connector connected to it (negotiated when the gateway has a hello); both closed when the test finishes. */
export async function connect(gatewayOptions: DevGatewayOptions, overrides: Partial<GatewayConnectorOptions> = {}): Promise<{ connector: GatewayConnector; frames: ReplyFrame[]; records: LogRecord[] }> {
  const { gateway, connector, frames, records } = await devGatewayConnector(gatewayOptions, overrides);
  onTestFinished(async () => {
    await connector.close();
    await gateway.close();
  });
  connector.start();
  expect(await until(() => connector.isConnected, 10_000)).toBe(true);
  if (gatewayOptions.hello !== undefined) expect(await until(() => records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
  return { connector, frames, records };
}

/** The dev gateway's hello, files included. */
export const files = withOutboundFiles({});
/** What the dev gateway does, without the file capability. */
export const noFiles: DevGatewayOptions = { hello: { capabilities: { telegram: { ...(devGatewayHello().capabilities as Record<string, object>)["telegram"], supports_outbound_attachments: false } } } };

