// Frames: the gateway's wire frames, parsed and bounded.
// The public surface of ingress/frames/: everything else in the folder is internal.
export { parseGatewayFrame, type FrameRejection, type GatewayFrame } from "./gatewayFrames.js";
export { responseOutcome, type GatewayResponse, type ResponseOutcome } from "./responseFrame.js";
export { resolveCapabilities, type GatewayHello, type PlatformCapabilities } from "./helloFrame.js";
