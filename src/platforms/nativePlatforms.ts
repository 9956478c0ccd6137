import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { Config } from "../config/index.js";

/**
 * The platforms this deployment speaks to natively, from its config: every process knows them,
 * so a worker sends to the adapters' own subjects and reads their fixed capabilities without
 * holding the connection itself.
 */
export function nativePlatforms(_config: Config): Map<string, PlatformCapabilities> {
  return new Map();
}
