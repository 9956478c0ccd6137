import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import { charsPerMessage } from "./charsPerMessage.js";
import type { PlatformPort } from "./platformPort.js";

/**
 * What a worker knows of a platform it replies on: a native platform's fixed capabilities (every
 * process knows them from the config, with or without the connection), else what the gateway port
 * in this process negotiated — nothing (legacy, 4096 characters) on a worker without one.
 */
export class PlatformCapabilitiesOf {
  readonly #gateway: PlatformPort | undefined;
  readonly #native: ReadonlyMap<string, PlatformCapabilities>;

  constructor(ports: readonly PlatformPort[], native: ReadonlyMap<string, PlatformCapabilities>) {
    this.#gateway = ports.find((port) => port.platforms === undefined);
    this.#native = native;
  }

  capabilities(platform: string): PlatformCapabilities | undefined {
    return this.#native.get(platform) ?? this.#gateway?.capabilities(platform);
  }

  messageLimit(platform: string): number {
    const native = this.#native.get(platform);
    return native === undefined ? (this.#gateway?.messageLimit(platform) ?? charsPerMessage(undefined)) : charsPerMessage(native);
  }
}
