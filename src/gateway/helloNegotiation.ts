import type { Logger } from "../log/logger.js";
import { GATEWAY_PROTOCOL_VERSION, type GatewayHello } from "../../operators/ingress/frames/helloFrame.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";

/** The `client_hello.v1` offered on every new connection; a gateway that knows the handshake answers with its hello. */
export function clientHelloFrame(clientVersion: string): string {
  return JSON.stringify({
    schema: "openab.gateway.client_hello.v1",
    protocol_version: 1,
    client_name: `turnstream/${clientVersion}`,
    requested_platforms: [],
  });
}

/**
 * The gateway's hello when turnstream can negotiate it, else undefined: an invalid hello (undefined
 * here) or another protocol version keeps the connection in legacy mode, with a warning.
 */
export function acceptHello(hello: GatewayHello | undefined, logger: Logger): GatewayHello | undefined {
  if (hello === undefined) {
    logger.warn({ reason: "invalid_hello" }, "invalid gateway hello; continuing in legacy mode");
    return undefined;
  }
  if (hello.protocol_version !== GATEWAY_PROTOCOL_VERSION) {
    logger.warn({ reason: "unsupported_version", protocol_version: hello.protocol_version }, "gateway hello version is unsupported; continuing in legacy mode");
    return undefined;
  }
  logger.info({ protocol_version: hello.protocol_version, capability_count: Object.keys(hello.capabilities).length }, "gateway capabilities negotiated");
  if (hello.topology?.supported === false) {
    logger.warn(
      {
        active_consumers: hello.topology.active_consumers,
        // The gateway's own words: bounded and cleaned for the log line.
        delivery_mode: hello.topology.delivery_mode == null ? hello.topology.delivery_mode : untrustedText(hello.topology.delivery_mode, { maxChars: 64 }),
      },
      "gateway reports unsupported multi-consumer topology",
    );
  }
  return hello;
}
